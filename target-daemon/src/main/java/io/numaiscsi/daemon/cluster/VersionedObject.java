package io.numaiscsi.daemon.cluster;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One small object in a store that several gateways share, replaced whole with a compare-and-swap on its version: the
 * primitive shared persistent reservations are built on. A RADOS object (read with its version, write guarded by
 * {@code rados_write_op_assert_version}, watch/notify for {@link #knownVersion}) and a file on a host-local tmpfs
 * ({@link LocalFileObject}) both fit.
 */
public interface VersionedObject {
    /** The object's bytes at a version; version 0 and no bytes for an object that does not exist yet. */
    record Contents(long version, byte[] bytes) {}

    Contents read() throws IOException;

    /**
     * Replaces the object with {@code bytes} if its version is still {@code expectedVersion}; returns the new version
     * (greater than {@code expectedVersion}), or -1 when another writer replaced it first (nothing written). The
     * returned stage completes once every other gateway's {@link #knownVersion} shows the new version and, with a
     * store that tells of changes ({@link #changes}), each other gateway has taken it up or has been fenced; it
     * completes exceptionally when one could be neither (the change stands). {@code abortsTasks} is passed to the
     * other gateways (a PREEMPT AND ABORT).
     *
     * @throws IOException the store failed
     */
    Replaced replace(long expectedVersion, byte[] bytes, boolean abortsTasks) throws IOException;

    /** A replace's new version (-1: lost) and when the other gateways hold it. */
    record Replaced(long version, CompletionStage<Void> takenUp) {
        static Replaced at(long version) {
            return new Replaced(version, CompletableFuture.completedStage(null));
        }
    }

    /**
     * The newest version this gateway knows of, without I/O (it is looked at before every reservation conflict
     * decision, so on the I/O path): shared memory for the local backend, the last change notice for RADOS.
     */
    long knownVersion();

    /** Where the changes other gateways make are told, for stores that tell them; set once, before use. */
    default void changes(ChangeListener listener) {}

    /**
     * A client of this gateway (its RBD image's) that another gateway must fence together with it when this gateway
     * does not take up a change in time; the latest few are remembered. Stores that fence nobody ignore it.
     */
    default void fenceWith(String clientAddress) throws IOException {}

    /** A change another gateway made; called on a store thread, must not block. */
    interface ChangeListener {
        /** Take the change up; run {@code acknowledge} (any thread) once done. */
        void changed(boolean abortsTasks, Runnable acknowledge);
    }
}
