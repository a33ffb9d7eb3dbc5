package io.numaiscsi.cache;

import static io.numaiscsi.cache.Support.pattern;
import static io.numaiscsi.cache.Support.read;
import static io.numaiscsi.cache.Support.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.cache.Support.CountingDevice;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PRE-FETCH through the cache: the range is filled (scan and first-time rules notwithstanding) and then hits. */
class PrefetchTest {
    private static final int K = 1024;
    private static final int BLOCK = 512 * K;
    private static final long DEVICE = 16L << 20;
    /** Per node: 2 nodes x 2 partitions x 4 slots of 512 KiB. */
    private static final long PER_NODE = 4L * BLOCK * 2;

    private final CountingDevice backing = new CountingDevice(DEVICE);
    private final byte[] data = pattern((int) DEVICE, 5);
    private CachedBlockDevice cache;

    private void open(WritePolicy policy) {
        assertEquals(IoStatus.OK, write(backing.ram, 0, data, false));
        cache = Support.cache(backing, PER_NODE, BLOCK, 2, 1, policy);
    }

    @AfterEach
    void close() {
        if (cache != null) {
            cache.close();
        }
    }

    private IoStatus prefetch(long offset, long length) {
        Support.Done done = new Support.Done();
        cache.prefetch(offset, length, done);
        return done.await();
    }

    private CacheCounters.Snapshot counters() {
        return cache.counters().snapshot();
    }

    @Test
    void aPrefetchedSequentialRangeIsFilledAndThenServedFromTheCache() {
        open(WritePolicy.WRITE_THROUGH);
        // three whole blocks in a row: without PRE-FETCH the admission reads such a scan through
        assertEquals(IoStatus.OK, prefetch(3L * BLOCK, 3L * BLOCK));
        assertEquals(3L * BLOCK, backing.bytesRead.get(), "each block read once from the backing device");
        assertEquals(0, cache.pinnedSlots(), "nothing stays pinned");

        long hitsBefore = counters().total(counters().hits());
        for (long at = 3L * BLOCK; at < 6L * BLOCK; at += 64 * K) {
            assertArrayEquals(Arrays.copyOfRange(data, (int) at, (int) at + 4 * K), read(cache, at, 4 * K));
        }
        assertEquals(3L * BLOCK, backing.bytesRead.get(), "the reads after it touched no backing device");
        assertEquals(hitsBefore + 24, counters().total(counters().hits()), "24 reads, 24 hits");
    }

    @Test
    void aPrefetchOfPartOfABlockFillsThatPart() {
        open(WritePolicy.WRITE_BACK);
        long at = 9L * BLOCK + 100 * K;
        assertEquals(IoStatus.OK, prefetch(at, 8 * K));
        long read = backing.bytesRead.get();
        assertArrayEquals(Arrays.copyOfRange(data, (int) at, (int) at + 8 * K), read(cache, at, 8 * K));
        assertEquals(read, backing.bytesRead.get(), "the prefetched bytes hit");
    }

    @Test
    void theLimitIsHalfThePoolsAndARangeOutsideTheDeviceIsRefused() {
        open(WritePolicy.WRITE_THROUGH);
        assertEquals(PER_NODE, cache.prefetchLimit(), "half of two nodes' pools");
        assertEquals(IoStatus.OUT_OF_RANGE, prefetch(DEVICE - BLOCK, 2L * BLOCK));
        assertEquals(0, backing.bytesRead.get());
    }
}
