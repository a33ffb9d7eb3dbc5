package io.numaiscsi.cache;

import io.numaiscsi.counters.PerThreadCounters;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One device's dirty bytes (write-back) against its two limits, and what its write-back batches wrote. Dirty bytes
 * are what the write-backs of the slots marked dirty would write (a mapped block newer than the backing device,
 * including one a batch is writing back): the granules written since each block was last clean, so a 4 KiB write
 * into a block counts 4 KiB, not the block. Kept by {@link DirtySlots} as those granules change, never by a scan.
 *
 * <p>Above the soft limit ({@code dirty-ratio} of the capacity) the background flusher starts a batch. A write that
 * would take the dirty bytes above the hard limit waits (parks, like a write finding no slot) and asks for a batch
 * inline, so writers faster than the backing device cannot fill the cache with dirty blocks.
 *
 * <p>The dirty bytes are a shared total the partitions change under their own locks and every write checks, so they
 * are one atomic value; the batches and bytes written back are counters for the metrics, counted by whichever thread
 * starts a batch or completes its writes ({@link PerThreadCounters}).
 */
final class DirtyAccount {
    private static final int BATCHES = 0;
    private static final int WRITTEN_BACK = 1;
    private final AtomicLong bytes = new AtomicLong();
    private final int blockSize;
    final long capacity;
    final long softLimit;
    final long hardLimit;
    private final PerThreadCounters writeback = new PerThreadCounters(2);
    /** A write waited on the hard limit since the flusher last looked. */
    private volatile boolean throttled;

    private volatile Runnable onSoftCrossing = () -> {};

    DirtyAccount(long capacity, double ratio, int blockSize) {
        this.capacity = capacity;
        this.blockSize = blockSize;
        this.softLimit = (long) (capacity * ratio);
        // twice the ratio, but always leaving half of the rest clean (for reads and copy-on-write), and at least one
        // block
        this.hardLimit = Math.max(blockSize, Math.min(2 * softLimit, (capacity + softLimit) / 2));
    }

    /** Called (cheaply, partition lock held) when a write takes the dirty bytes above the soft limit. */
    void onSoftCrossing(Runnable r) {
        onSoftCrossing = r;
    }

    long bytes() {
        return bytes.get();
    }

    /** {@code n} more bytes are dirty (negative: fewer, when a dirty slot's granules changed). */
    void dirtied(long n) {
        long after = bytes.addAndGet(n);
        if (n > 0 && after > softLimit && after - n <= softLimit) {
            onSoftCrossing.run();
        }
    }

    void cleaned(long n) {
        bytes.addAndGet(-n);
    }

    /** Whether a write may dirty one more block (at most a block's bytes) now; if not, it waits and the flusher is told. */
    boolean admitsBlock() {
        if (hasRoomForBlock()) {
            return true;
        }
        throttled = true;
        return false;
    }

    /** Whether one more whole dirty block would stay within the hard limit (a check only: nothing is recorded). */
    boolean hasRoomForBlock() {
        return bytes.get() + blockSize <= hardLimit;
    }

    boolean takeThrottled() {
        if (!throttled) {
            return false;
        }
        throttled = false;
        return true;
    }

    void batchStarted() {
        writeback.increment(BATCHES);
    }

    void wroteBack(int n) {
        writeback.add(WRITTEN_BACK, n);
    }

    long batches() {
        return writeback.get(BATCHES);
    }

    long writtenBackBytes() {
        return writeback.get(WRITTEN_BACK);
    }
}
