package io.numaiscsi.daemon.session;

import java.util.concurrent.Executor;

/**
 * Which thread runs what (ARCHITECTURE "Decentralized event processing"): after login a connection
 * moves to the home thread of its target; SCSI commands run on the thread of their LUN. In the
 * centralized model every answer is the same single thread.
 */
public interface EventThreads {
    /** The thread that owns the connections of a target after login. */
    Executor homeOf(ExportedTarget target);

    /** The thread that executes commands for one LUN of a target; null for a LUN that does not exist. */
    Executor lunThread(ExportedTarget target, int lun);
}
