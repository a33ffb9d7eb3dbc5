package io.numaiscsi.scsi;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * A unit's side of the persistent reservations it shares with the other gateways that export it (see
 * {@link SharedReservations}): takes up the shared state, and each change another gateway makes to it.
 */
final class PeerReservationChanges {
    private PeerReservationChanges() {}

    /** Shares {@code lu}'s reservations through {@code object}, takes up the state it holds, and follows its changes. */
    static void share(LogicalUnit lu, SharedReservations object) throws IOException {
        lu.reservations.sync.share(Objects.requireNonNull(object, "object"));
        lu.reservations.sync.peersNotify();
        object.peerChanges(
                (abortsTasks, acknowledge) -> lu.thread().execute(() -> takeUp(lu, abortsTasks, acknowledge)));
    }

    /**
     * Another gateway changed the shared reservations: take the state up, then acknowledge once the tasks of the nexuses
     * it unregistered have left (aborted first, for PREEMPT AND ABORT, with those the transport still holds). When the
     * state cannot be read nothing is acknowledged: the other gateway then fences this one. On the unit's thread.
     */
    private static void takeUp(LogicalUnit lu, boolean abortsTasks, Runnable acknowledge) {
        if (!lu.reservations.refreshed()) {
            return;
        }
        List<ItNexus> lost = lu.reservations.sync.takeLostToPeers();
        ScsiTarget target = lu.target();
        if (abortsTasks && target != null) {
            for (ItNexus victim : lost) {
                int number = target.numberSeenBy(victim, lu);
                if (number >= 0) {
                    target.transportAborts().abort(victim, number);
                }
            }
        }
        lu.tasks.afterTasksOf(lost, abortsTasks, acknowledge);
    }
}
