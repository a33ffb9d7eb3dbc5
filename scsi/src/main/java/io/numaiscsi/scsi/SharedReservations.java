package io.numaiscsi.scsi;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The persistent reservations of a logical unit that several gateways export (ALUA), kept in one object of a cluster
 * store that every gateway reads and replaces with a compare-and-swap on its version. The unit's in-memory state is a
 * cache of the object at {@link Versioned#version}:
 * <ul>
 *   <li>before each conflict decision the unit compares {@link #knownVersion()} with the version it holds and reads
 *   the object again when they differ; so {@code knownVersion()} must be cheap and non-blocking (a load, no I/O) and a
 *   backend must make a replace won anywhere visible there before that replace returns (a version word in shared
 *   memory for the local backend; watch/notify with acknowledgements for RADOS);</li>
 *   <li>a PERSISTENT RESERVE OUT is applied to the state at the version read, then {@link #replace}d: a gateway that
 *   lost the race reads the winner's state and decides the command again against it, so two gateways never both
 *   win a RESERVE.</li>
 * </ul>
 * <p>A gateway that replaced the object makes every other gateway take up the change before its command completes:
 * each is told ({@link PeerChanges}) and acknowledges once its unit holds the new state and the tasks of the nexuses
 * that lost their registration have left (aborted first for PREEMPT AND ABORT); a gateway that does not acknowledge
 * in time is fenced by the store. Calls are made on the unit's thread and may block on the store.
 */
public interface SharedReservations {
    /** The state at one version; version 0 with {@link ReservationState#EMPTY} when the object does not exist yet. */
    record Versioned(long version, ReservationState state) {}

    /** Reads the object. */
    Versioned read() throws IOException;

    /**
     * Replaces the object with {@code next} if its version is still {@code expectedVersion}: the new version, or -1 when
     * another gateway replaced it first (nothing written). {@code abortsTasks}: the change is a PREEMPT AND ABORT, whose
     * preempted nexuses' tasks the other gateways abort. The write itself is quick; telling the other gateways is what
     * {@link Replaced#takenUp} waits for, without holding the caller's thread.
     *
     * @throws IOException the store failed
     */
    Replaced replace(long expectedVersion, ReservationState next, boolean abortsTasks) throws IOException;

    /**
     * A replace's outcome: the new version (-1: lost to another gateway), and a stage that completes once every other
     * gateway took the change up or was fenced, or exceptionally when one could be neither (the change stands).
     */
    record Replaced(long version, CompletionStage<Void> takenUp) {
        static final CompletionStage<Void> DONE = CompletableFuture.completedStage(null);

        /** A replace with nobody else to tell. */
        public static Replaced at(long version) {
            return new Replaced(version, DONE);
        }
    }

    /** Where the changes other gateways make are told; set once, before the unit serves. Stores without notices ignore it. */
    default void peerChanges(PeerChanges listener) {}

    /** A change another gateway made; called on any thread. */
    interface PeerChanges {
        /** Take the change up; run {@code acknowledge} (any thread) once done. */
        void changed(boolean abortsTasks, Runnable acknowledge);
    }

    /** The newest version this gateway knows the object to have; cheap, no I/O. */
    long knownVersion();
}
