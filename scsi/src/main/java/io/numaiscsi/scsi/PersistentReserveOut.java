package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PERSISTENT RESERVE OUT's execution: the parameter list is read, the unit's {@link PersistentReservations} change, and
 * the status waits for what the change requires first:
 * <ul>
 *   <li>with APTPL active, the new state durable in the unit's {@link ReservationStore} (the store completes on its own
 *   thread; the command goes on on the unit's), so an initiator that saw GOOD finds the state again after a
 *   restart;</li>
 *   <li>for PREEMPT AND ABORT (SPC-4 5.13.11.2.6), the preempted nexuses' tasks gone: those the unit is executing,
 *   and, through the transport, those not yet here.</li>
 * </ul>
 */
final class PersistentReserveOut {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentReserveOut.class);

    private PersistentReserveOut() {}

    /** How often an OUT is decided again after another gateway changed the shared state first. */
    private static final int SHARED_ATTEMPTS = 8;

    static void execute(ScsiTask t, LogicalUnit lu, ScsiTarget target) {
        PersistentReservations pr = lu.reservations.persistent;
        SenseReason r = null;
        boolean published = false;
        for (int attempt = 0; attempt < SHARED_ATTEMPTS && !published; attempt++) {
            r = change(t, lu);
            if (r != null) {
                break;
            }
            try {
                // false: lost the race, the winner's state is ours now: decide again
                published = lu.reservations.sync.publish(
                        ProutServiceAction.of(t.cdb[1] & 0x1F) == ProutServiceAction.PREEMPT_AND_ABORT);
                if (!published) {
                    LOG.info(
                            "LUN {}: another gateway changed the shared persistent reservations first; service action {} of"
                                    + " {} is decided again on its state",
                            lu.lun,
                            t.cdb[1] & 0x1F,
                            t.nexus);
                }
            } catch (IOException e) {
                LOG.error(
                        "LUN {}: the shared persistent reservations could not be replaced; the OUT failed: {}",
                        lu.lun,
                        e.getMessage());
                r = SenseReason.INTERNAL_TARGET_FAILURE;
                break;
            }
        }
        if (r == null && !published) {
            r = SenseReason.BUSY; // lost every race: the initiator retries
        }
        if (r != null) {
            t.completeFailed(r);
            return;
        }
        boolean abort = ProutServiceAction.of(t.cdb[1] & 0x1F) == ProutServiceAction.PREEMPT_AND_ABORT
                && !pr.preempted().isEmpty();
        // the lists and flags are the next OUT's once this one waits: keep what this one needs
        List<ItNexus> victims = abort ? List.copyOf(pr.preempted()) : List.of();
        ReservationState toSave = pr.saveDue() ? pr.snapshot() : null;
        // the other gateways take the change up (or are fenced) before the status; the unit's thread serves on
        // meanwhile
        lu.reservations
                .sync
                .takenUp()
                .whenComplete((ok, failure) -> lu.thread().runHereOrQueue(() -> {
                    if (failure != null) {
                        LOG.error(
                                "LUN {}: the persistent reservations changed, but another gateway neither took the change up nor"
                                        + " could be fenced; the OUT failed: {}",
                                lu.lun,
                                rootMessage(failure));
                        t.completeFailed(SenseReason.INTERNAL_TARGET_FAILURE);
                    } else if (toSave == null) {
                        if (abort) {
                            abortThenComplete(t, lu, target, victims);
                        } else {
                            t.completeGood();
                        }
                    } else {
                        pr.store()
                                .save(
                                        toSave,
                                        saveFailure -> lu.thread()
                                                .runHereOrQueue(() -> saved(t, lu, target, victims, saveFailure)));
                    }
                }));
    }

    private static String rootMessage(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause instanceof CompletionException) {
            cause = cause.getCause();
        }
        return cause.getMessage();
    }

    private static void saved(
            ScsiTask t, LogicalUnit lu, ScsiTarget target, List<ItNexus> victims, IOException failure) {
        if (failure != null) {
            // the change stands in memory; the next one that saves writes the whole state again
            LOG.error(
                    "LUN {}: persistent reservations changed but could not be saved ({}); the initiator is told it failed",
                    lu.lun,
                    lu.reservations.persistent.store(),
                    failure);
            t.completeFailed(SenseReason.INTERNAL_TARGET_FAILURE);
        } else if (!victims.isEmpty()) {
            abortThenComplete(t, lu, target, victims);
        } else {
            t.completeGood();
        }
    }

    private static void abortThenComplete(ScsiTask t, LogicalUnit lu, ScsiTarget target, List<ItNexus> victims) {
        for (ItNexus victim : victims) {
            int number = target.numberSeenBy(victim, lu);
            if (number >= 0) {
                target.transportAborts()
                        .abort(victim, number); // the transport knows the LUN by the number the nexus uses
            }
        }
        if (lu.tasks.abortTasksOf(victims, t) == 0) {
            t.completeGood();
        }
    }

    private static SenseReason change(ScsiTask t, LogicalUnit lu) {
        ByteBuf p = t.dataOut;
        if (p == null || p.readableBytes() < t.dataOutLength) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        byte[] list = new byte[t.dataOutLength]; // at most 4096 (CdbDecoder)
        p.getBytes(p.readerIndex(), list);
        ProutServiceAction serviceAction = ProutServiceAction.of(t.cdb[1] & 0x1F); // CdbDecoder let only these through
        int scope = (t.cdb[2] & 0xF0) >>> 4;
        ReservationType type = ReservationType.of(t.cdb[2] & 0x0F);
        if (lu.reservations.spc2ReservedByOther(t.nexus)) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        return lu.reservations.persistent.out(t.nexus, serviceAction, scope, type, list);
    }
}
