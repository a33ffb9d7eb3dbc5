package io.numaiscsi.iser;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The traffic counters of one connection. Single writer: only the connection's thread counts, reading its own plain
 * fields and publishing each new value with a release store, so any other thread (metrics, {@link IserTotals}) reads
 * a recent, untorn value with an acquire load and no lock. Counting allocates nothing.
 */
final class IserCounters {
    private static final VarHandle RECEIVES = field("receives");
    private static final VarHandle SENDS = field("sends");
    private static final VarHandle RDMA_WRITES = field("rdmaWrites");
    private static final VarHandle RDMA_READS = field("rdmaReads");
    private static final VarHandle BYTES_WRITTEN = field("bytesWritten");
    private static final VarHandle BYTES_READ = field("bytesRead");
    private static final VarHandle BYTES_WRITTEN_IN_PLACE = field("bytesWrittenInPlace");

    private long receives;
    private long sends;
    private long rdmaWrites;
    private long rdmaReads;
    private long bytesWritten;
    private long bytesRead;
    private long bytesWrittenInPlace;

    private static VarHandle field(String name) {
        try {
            return MethodHandles.lookup().findVarHandle(IserCounters.class, name, long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---- the connection's thread ----

    void received() {
        RECEIVES.setRelease(this, receives + 1);
    }

    void sent() {
        SENDS.setRelease(this, sends + 1);
    }

    /** One RDMA Write of {@code bytes} from a staging chunk. */
    void wrote(int bytes) {
        RDMA_WRITES.setRelease(this, rdmaWrites + 1);
        BYTES_WRITTEN.setRelease(this, bytesWritten + bytes);
    }

    /** One RDMA Write of {@code bytes} straight from registered cache memory. */
    void wroteInPlace(int bytes) {
        wrote(bytes);
        BYTES_WRITTEN_IN_PLACE.setRelease(this, bytesWrittenInPlace + bytes);
    }

    /** One RDMA Read posted. */
    void readPosted() {
        RDMA_READS.setRelease(this, rdmaReads + 1);
    }

    /** {@code bytes} of data-out landed and were copied to the session. */
    void readLanded(int bytes) {
        BYTES_READ.setRelease(this, bytesRead + bytes);
    }

    // ---- any thread ----

    long receives() {
        return (long) RECEIVES.getAcquire(this);
    }

    long sends() {
        return (long) SENDS.getAcquire(this);
    }

    long rdmaWrites() {
        return (long) RDMA_WRITES.getAcquire(this);
    }

    long rdmaReads() {
        return (long) RDMA_READS.getAcquire(this);
    }

    long bytesWritten() {
        return (long) BYTES_WRITTEN.getAcquire(this);
    }

    long bytesRead() {
        return (long) BYTES_READ.getAcquire(this);
    }

    long bytesWrittenInPlace() {
        return (long) BYTES_WRITTEN_IN_PLACE.getAcquire(this);
    }

    /** The counters now; each field is current, the set is not one atomic cut. */
    IserStats snapshot() {
        return new IserStats(receives(), sends(), rdmaWrites(), rdmaReads(), bytesWritten(), bytesRead(),
                bytesWrittenInPlace());
    }
}
