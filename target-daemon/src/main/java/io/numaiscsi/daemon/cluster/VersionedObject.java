package io.numaiscsi.daemon.cluster;

import java.io.IOException;

/**
 * One small object in a store that several gateways share, replaced whole with a compare-and-swap on its version: the
 * primitive shared persistent reservations are built on. A RADOS object (read with its version, write guarded by
 * {@code rados_write_op_assert_version}, watch/notify for {@link #knownVersion}) and a file on a host-local tmpfs
 * ({@link LocalFileObject}) both fit.
 */
public interface VersionedObject {
    /** The object's bytes at a version; version 0 and no bytes for an object that does not exist yet. */
    record Contents(long version, byte[] bytes) {
    }

    Contents read() throws IOException;

    /**
     * Replaces the object with {@code bytes} if its version is still {@code expectedVersion}; returns the new version
     * (greater than {@code expectedVersion}), or -1 when another writer replaced it first (nothing written). When it
     * returns, every other gateway's {@link #knownVersion} already shows the new version.
     */
    long replace(long expectedVersion, byte[] bytes) throws IOException;

    /**
     * The newest version this gateway knows of, without I/O (it is looked at before every reservation conflict
     * decision, so on the I/O path): shared memory for the local backend, the last change notice for RADOS.
     */
    long knownVersion();
}
