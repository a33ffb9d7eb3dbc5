package io.numaiscsi.iser;

import java.nio.ByteBuffer;

/**
 * The device side of RDMA verbs this transport needs beyond one connection: memory registration in the
 * protection domain every connection shares. Implemented by the libibverbs binding and by the in-process fake
 * of the tests.
 */
public interface Verbs {
    /** Registers a direct buffer for local write, remote read and remote write; null when the device refuses. */
    MemoryRegion register(ByteBuffer directBuffer);

    void deregister(MemoryRegion region);
}
