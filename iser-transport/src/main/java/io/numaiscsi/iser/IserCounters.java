package io.numaiscsi.iser;

import io.numaiscsi.counters.SingleWriterCounters;

/**
 * The traffic counters of one connection. Single writer: only the connection's thread counts
 * ({@link SingleWriterCounters}), so any other thread (metrics, {@link IserTotals}) reads a recent, untorn value with
 * no lock. Counting allocates nothing.
 */
final class IserCounters {
    private static final int RECEIVES = 0;
    private static final int SENDS = 1;
    private static final int RDMA_WRITES = 2;
    private static final int RDMA_READS = 3;
    private static final int BYTES_WRITTEN = 4;
    private static final int BYTES_READ = 5;
    private static final int BYTES_WRITTEN_IN_PLACE = 6;

    private final SingleWriterCounters counts = new SingleWriterCounters(7);

    // ---- the connection's thread ----

    void received() {
        counts.increment(RECEIVES);
    }

    void sent() {
        counts.increment(SENDS);
    }

    /** One RDMA Write of {@code bytes} from a staging chunk. */
    void wrote(int bytes) {
        counts.increment(RDMA_WRITES);
        counts.add(BYTES_WRITTEN, bytes);
    }

    /** One RDMA Write of {@code bytes} straight from registered cache memory. */
    void wroteInPlace(int bytes) {
        wrote(bytes);
        counts.add(BYTES_WRITTEN_IN_PLACE, bytes);
    }

    /** One RDMA Read posted. */
    void readPosted() {
        counts.increment(RDMA_READS);
    }

    /** {@code bytes} of data-out landed and were copied to the session. */
    void readLanded(int bytes) {
        counts.add(BYTES_READ, bytes);
    }

    // ---- any thread ----

    long receives() {
        return counts.get(RECEIVES);
    }

    long sends() {
        return counts.get(SENDS);
    }

    long rdmaWrites() {
        return counts.get(RDMA_WRITES);
    }

    long rdmaReads() {
        return counts.get(RDMA_READS);
    }

    long bytesWritten() {
        return counts.get(BYTES_WRITTEN);
    }

    long bytesRead() {
        return counts.get(BYTES_READ);
    }

    long bytesWrittenInPlace() {
        return counts.get(BYTES_WRITTEN_IN_PLACE);
    }

    /** The counters now; each field is current, the set is not one atomic cut. */
    IserStats snapshot() {
        return new IserStats(
                receives(), sends(), rdmaWrites(), rdmaReads(), bytesWritten(), bytesRead(), bytesWrittenInPlace());
    }
}
