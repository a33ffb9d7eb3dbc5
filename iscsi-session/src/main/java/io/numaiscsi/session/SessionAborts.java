package io.numaiscsi.session;

import io.numaiscsi.scsi.ItNexus;
import io.numaiscsi.scsi.TransportTaskAborts;

/**
 * Ends the tasks a session still holds for a LUN (collecting Data-Out, parked, queued for the LUN's thread) when the
 * SCSI layer aborts its nexus (PREEMPT AND ABORT). The session's connection does it on its own thread.
 */
public final class SessionAborts implements TransportTaskAborts {
    private final SessionTable sessions;

    public SessionAborts(SessionTable sessions) {
        this.sessions = sessions;
    }

    @Override
    public void abort(ItNexus nexus, int lun) {
        IscsiSession session = sessions.byNexus(nexus);
        IscsiConnection c = session == null ? null : session.connection();
        if (c != null) {
            c.abortFromOtherThread(lun, null);
        }
    }
}
