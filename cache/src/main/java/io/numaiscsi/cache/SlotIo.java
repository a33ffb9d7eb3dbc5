package io.numaiscsi.cache;

import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.util.Arrays;

/**
 * The backing I/O of one slot (a fill or a write-back; a slot has at most one in flight) and the
 * requests waiting for its fill. One per slot, made at start: no allocation per I/O.
 */
final class SlotIo implements IoCompletion {
    /** Where a slot's backing I/O reports: fills to the fill coordinator, write-backs to the write-back scheduler. */
    interface Sink {
        void fillDone(SlotIo io, IoStatus status);

        void writebackDone(SlotIo io, IoStatus status);
    }

    private final Sink sink;
    final CachePartition partition;
    final int slot;
    boolean writingBack;
    /** The granules [fillFrom, fillTo) the fill in flight reads (partition lock held to set or test). */
    int fillFrom;

    int fillTo;
    /** A write-back: where the run of newer granules being written ends (the next run is looked for from there). */
    int runTo;
    /** A write-back: the bytes of that run (counted as written back when it completes). */
    int runBytes;

    private FillWaiter[] waiters = new FillWaiter[4];
    private int waiterCount;

    SlotIo(Sink sink, CachePartition partition, int slot) {
        this.sink = sink;
        this.partition = partition;
        this.slot = slot;
    }

    /** Whether the fill in flight reads every granule of [from, to). Partition lock held. */
    boolean fillCovers(int from, int to) {
        return fillFrom <= from && to <= fillTo;
    }

    /** Partition lock held. */
    void addWaiter(FillWaiter r) {
        if (waiterCount == waiters.length) {
            waiters = Arrays.copyOf(waiters, waiterCount * 2);
        }
        waiters[waiterCount++] = r;
    }

    /** Partition lock held: detaches the waiter count; notify with {@link #waiter(int)} after unlocking. */
    int takeWaiters() {
        int n = waiterCount;
        waiterCount = 0;
        return n;
    }

    /**
     * The i-th detached waiter, cleared. Every waiter holds a pin, so the slot (and this array) cannot
     * be reused before the last one has been handed out.
     */
    FillWaiter waiter(int i) {
        FillWaiter r = waiters[i];
        waiters[i] = null;
        return r;
    }

    @Override
    public void ioComplete(IoStatus status) {
        if (writingBack) {
            sink.writebackDone(this, status);
        } else {
            sink.fillDone(this, status);
        }
    }
}
