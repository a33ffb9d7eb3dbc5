package io.numaiscsi.session;

import io.numaiscsi.proto.Lun;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.SerialNumber;
import io.numaiscsi.proto.TaskMgmtRequestHeader;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.ScsiTarget;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task Management Function requests (RFC 7143 11.5/11.6): aborts really stop the commands before the
 * response goes out; LUN and target resets reach the commands of every session of the target through
 * each connection's own thread.
 */
final class TaskManagement {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagement.class);

    static final int ABORT_TASK = 1;
    static final int ABORT_TASK_SET = 2;
    static final int CLEAR_ACA = 3;
    static final int CLEAR_TASK_SET = 4;
    static final int LOGICAL_UNIT_RESET = 5;
    static final int TARGET_WARM_RESET = 6;
    static final int TARGET_COLD_RESET = 7;
    static final int TASK_REASSIGN = 8;

    static final int FUNCTION_COMPLETE = 0;
    static final int TASK_DOES_NOT_EXIST = 1;
    static final int LUN_DOES_NOT_EXIST = 2;
    static final int REASSIGN_NOT_SUPPORTED = 4;
    static final int FUNCTION_NOT_SUPPORTED = 5;
    static final int FUNCTION_REJECTED = 255;

    private final IscsiConnection connection;
    private final SessionTable sessions;
    private final TaskMgmtRequestHeader header = new TaskMgmtRequestHeader();

    TaskManagement(IscsiConnection connection, SessionTable sessions) {
        this.connection = connection;
        this.sessions = sessions;
    }

    void onRequest(Pdu pdu) {
        TaskMgmtRequestHeader h = header.wrap(pdu.bhs());
        int function = h.function();
        int itt = h.initiatorTaskTag();
        int lun = Lun.decode(h.lun());
        ScsiTarget scsi = connection.session().target().scsi();
        boolean lunScoped = function == ABORT_TASK_SET || function == CLEAR_TASK_SET || function == LOGICAL_UNIT_RESET;
        if (lunScoped && (lun < 0 || scsi.unit(connection.session().nexus(), lun) == null)) {
            respond(itt, LUN_DOES_NOT_EXIST);
            return;
        }
        if (PeerEventLogs.TASK_MANAGEMENT.permit()) {
            LOG.info(
                    "task management function {} for LUN {} from {} (itt=0x{})",
                    function,
                    lun,
                    connection.parameters().initiatorName(),
                    Integer.toHexString(itt));
        }
        switch (function) {
            case ABORT_TASK -> abortTask(itt, h.referencedTaskTag(), h.refCmdSN());
            case ABORT_TASK_SET -> {
                PendingTaskManagement p = new PendingTaskManagement(connection, itt, FUNCTION_COMPLETE, null);
                p.add(connection.commands().abortAll(lun, p));
                p.done();
            }
            case CLEAR_ACA -> respond(itt, FUNCTION_COMPLETE);
            case CLEAR_TASK_SET -> acrossSessions(itt, lun, null);
            case LOGICAL_UNIT_RESET ->
                acrossSessions(
                        itt,
                        lun,
                        () -> scsi.logicalUnitReset(lun, connection.session().nexus()));
            case TARGET_WARM_RESET ->
                acrossSessions(
                        itt, -1, () -> scsi.targetReset(connection.session().nexus()));
            case TARGET_COLD_RESET ->
                acrossSessions(itt, -1, () -> {
                    scsi.targetReset(connection.session().nexus());
                    closeAllSessionsAfterResponse();
                });
            case TASK_REASSIGN -> respond(itt, REASSIGN_NOT_SUPPORTED);
            default -> respond(itt, FUNCTION_REJECTED);
        }
    }

    private void abortTask(int itt, int referencedTag, int refCmdSN) {
        IscsiCommand victim = connection.commands().find(referencedTag);
        if (victim == null) {
            // Not here: if its CmdSN has not arrived yet it never will run (RFC 7143 11.5.1); else it is done.
            boolean notYetReceived =
                    !SerialNumber.lessThan(refCmdSN, connection.window().expCmdSN());
            respond(itt, notYetReceived ? FUNCTION_COMPLETE : TASK_DOES_NOT_EXIST);
            return;
        }
        PendingTaskManagement p = new PendingTaskManagement(connection, itt, FUNCTION_COMPLETE, null);
        p.add(connection.commands().abort(victim, p));
        p.done();
    }

    /** Aborts the commands of every session of this target on {@code lun} (all LUNs when < 0), then responds. */
    private void acrossSessions(int itt, int lun, Runnable resetEffect) {
        PendingTaskManagement p = new PendingTaskManagement(connection, itt, FUNCTION_COMPLETE, resetEffect);
        ScsiTarget scsi = connection.session().target().scsi();
        LogicalUnit unit = lun < 0 ? null : scsi.unit(connection.session().nexus(), lun);
        List<IscsiSession> all =
                sessions.sessionsOf(connection.session().target().name());
        for (IscsiSession s : all) {
            IscsiConnection c = s.connection();
            if (c == null || c == connection) {
                continue;
            }
            // another initiator may see the unit at another LUN number (LUN masking), or not at all
            int theirs = unit == null ? -1 : scsi.numberSeenBy(s.nexus(), unit);
            if (lun < 0 || theirs >= 0) {
                c.abortFromOtherThread(lun < 0 ? -1 : theirs, p);
            }
        }
        p.add(connection.commands().abortAll(lun, p));
        p.done();
    }

    private void closeAllSessionsAfterResponse() {
        for (IscsiSession s : sessions.sessionsOf(connection.session().target().name())) {
            IscsiConnection c = s.connection();
            if (c != null) {
                c.closeFromOtherThread("TARGET COLD RESET");
            }
        }
    }

    private void respond(int itt, int response) {
        connection.out().taskManagementResponse(itt, response);
    }
}
