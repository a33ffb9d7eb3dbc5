package io.numaiscsi.blockdev.backstore;

/** One device's {@link IoRequest}s, kept for reuse: no allocation per I/O once the pool is warm. */
final class IoRequestPool {
    private static final int LIMIT = 256;

    private final FileBlockDevice device;
    private final IoRequest[] pool = new IoRequest[LIMIT];
    private int pooled;

    IoRequestPool(FileBlockDevice device) {
        this.device = device;
    }

    synchronized IoRequest take() {
        return pooled > 0 ? pool[--pooled] : new IoRequest(device);
    }

    synchronized void give(IoRequest r) {
        r.buf = null;
        r.done = null;
        if (pooled < LIMIT) {
            pool[pooled++] = r;
        }
    }
}
