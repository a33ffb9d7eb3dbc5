package io.numaiscsi.cache;

import static io.numaiscsi.cache.Support.pattern;
import static io.numaiscsi.cache.Support.read;
import static io.numaiscsi.cache.Support.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.cache.Support.CountingDevice;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One node's cache memory shared by several LUNs' caches: taken as they miss, a minimum share given back on demand. */
class NodeBlockPoolTest {
    private static final int BLOCK = 64 * 1024;
    private static final int POOL_BLOCKS = 32;
    private static final long DEVICE = 4L * POOL_BLOCKS * BLOCK; // each LUN is 4x the whole pool

    private final NumaTopology topology = NumaTopology.detect();
    private final NodeMemory memory = NodeMemory.open(topology);
    private final NodeBlockPool pool = NodeBlockPool.allocate(0, (long) POOL_BLOCKS * BLOCK, BLOCK, memory);
    private final List<CachedBlockDevice> caches = new ArrayList<>();
    private final List<byte[]> contents = new ArrayList<>();

    @AfterEach
    void close() {
        caches.forEach(CachedBlockDevice::close);
        pool.free(memory);
    }

    /** A LUN's cache on the pool: 2 partitions, each may grow to half the pool. */
    private CachedBlockDevice lun() {
        return lun(WritePolicy.WRITE_THROUGH);
    }

    private CachedBlockDevice lun(WritePolicy policy) {
        CountingDevice backing = new CountingDevice(DEVICE);
        byte[] data = pattern((int) DEVICE, caches.size() + 5);
        assertEquals(IoStatus.OK, write(backing.ram, 0, data, false));
        CacheParameters p = new CacheParameters(pool.bytes(), BLOCK, 2, 1, Integer.MAX_VALUE, policy);
        CachedBlockDevice c = CachedBlockDevice.createInPools(
                backing,
                p,
                topology,
                new NodeBlockPool[] {pool},
                null,
                new int[] {0},
                DataTouches.singleNode(),
                WriteBackFlusher.shared());
        caches.add(c);
        contents.add(data);
        return c;
    }

    /** Whole-block reads (each admitted as a fill) of {@code count} distinct blocks in a random order, checked. */
    private void readBlocks(int lun, int count, long seed) {
        List<Integer> blocks = new ArrayList<>();
        for (int b = 0; b < DEVICE / BLOCK; b++) {
            blocks.add(b);
        }
        Collections.shuffle(blocks, new Random(seed));
        for (int b : blocks.subList(0, count)) {
            long at = (long) b * BLOCK;
            assertArrayEquals(
                    Arrays.copyOfRange(contents.get(lun), (int) at, (int) at + BLOCK),
                    read(caches.get(lun), at, BLOCK),
                    "LUN " + lun + " block " + b);
        }
    }

    private static int held(CachedBlockDevice c) {
        return (int) (c.heldBytes() / BLOCK);
    }

    @Test
    void aLunAloneMayTakeTheWholePool() {
        CachedBlockDevice a = lun();
        readBlocks(0, 100, 1);
        assertEquals(POOL_BLOCKS, held(a));
        assertEquals(0, pool.freeBytes());
    }

    @Test
    void aLunUnderItsMinimumShareGetsItBackFromTheBusiestOne() throws Exception {
        CachedBlockDevice a = lun();
        readBlocks(0, 100, 2);
        assertEquals(POOL_BLOCKS, held(a), "A took everything while alone");
        CachedBlockDevice b = lun();
        int minimum = POOL_BLOCKS / 4; // half the pool split between two LUNs
        assertEquals(minimum, pool.minimumShare());
        long deadline = System.nanoTime() + 10_000_000_000L;
        long seed = 3;
        while (held(b) < minimum && System.nanoTime() < deadline) {
            readBlocks(1, 4, seed++); // B's misses claim; the reclaim runs in the background
            Thread.sleep(5);
        }
        assertTrue(held(b) >= minimum, "B holds " + held(b) + " blocks, its minimum is " + minimum);
        assertTrue(held(a) >= POOL_BLOCKS - minimum - 1, "A gave back no more than B's claim: A holds " + held(a));
        assertTrue(held(a) + held(b) <= POOL_BLOCKS, "never more than the pool");
        readBlocks(0, 100, 4); // A busy again: it keeps what it has, the pool stays shared
        assertTrue(held(b) >= minimum - 1 && held(a) + held(b) <= POOL_BLOCKS, "A " + held(a) + ", B " + held(b));
    }

    /**
     * A write-back write that finds its partition without memory and the pool dry parks; nothing of its own partition
     * will ever come free, so the pool must wake it when memory comes back (the soak saw a LUN stop for good here).
     */
    @Test
    void aWriteBackWriteParkedForMemoryResumesWhenThePoolHasItAgain() {
        CachedBlockDevice a = lun();
        readBlocks(0, 100, 6);
        assertEquals(POOL_BLOCKS, held(a), "A took the whole pool (clean blocks)");
        CachedBlockDevice b = lun(WritePolicy.WRITE_BACK);
        for (int i = 0; i < 3 * POOL_BLOCKS; i++) { // past B's minimum share: the pool must move blocks to it again
            long at = (long) i * BLOCK;
            byte[] data = pattern(BLOCK, 100 + i);
            assertEquals(IoStatus.OK, write(b, at, data, false), "write " + i);
            assertArrayEquals(data, read(b, at, BLOCK), "block " + i);
        }
        assertTrue(held(a) + held(b) <= POOL_BLOCKS, "A " + held(a) + ", B " + held(b));
    }

    @Test
    void aClosedCacheGivesEveryBlockBack() {
        CachedBlockDevice a = lun();
        readBlocks(0, 10, 5);
        assertTrue(held(a) >= 8, "whole-block random reads fill (one that follows the previous block is a scan)");
        a.close();
        caches.remove(a);
        assertEquals(pool.bytes(), pool.freeBytes());
    }
}
