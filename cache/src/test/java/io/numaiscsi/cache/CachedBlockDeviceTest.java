package io.numaiscsi.cache;

import static io.numaiscsi.cache.Support.flush;
import static io.numaiscsi.cache.Support.pattern;
import static io.numaiscsi.cache.Support.read;
import static io.numaiscsi.cache.Support.unmap;
import static io.numaiscsi.cache.Support.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.cache.Support.CountingDevice;
import io.numaiscsi.cache.Support.Done;
import io.numaiscsi.numa.CpuPinning;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeLocator;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.NumaTopology;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CachedBlockDeviceTest {
    private static final int K = 1024;
    private static final int BLOCK = 64 * K;
    private static final long DEVICE = 4L << 20;

    private final CountingDevice backing = new CountingDevice(DEVICE);
    private CachedBlockDevice cache;

    /** 2 nodes x 2 partitions x 4 slots of 64 KiB, neighbours 1: block b is in partition b mod 4. */
    private CachedBlockDevice cache(WritePolicy policy) {
        cache = Support.cache(backing, 8 * BLOCK, BLOCK, 2, 1, policy);
        return cache;
    }

    @AfterEach
    void close() {
        if (cache != null) {
            cache.close();
        }
    }

    /** Copies counted on two nodes, by the calling thread's node; nodes bind no memory: only blocks' nodes are known. */
    private static DataTouches twoNodeTouches() {
        return new DataTouches(new NodeLocator() {
            @Override
            public int nodes() {
                return 2;
            }

            @Override
            public int currentCpuNode() {
                return NodeThread.currentNode();
            }

            @Override
            public int memoryNode(long address) {
                return -1;
            }
        });
    }

    private void fillBacking() {
        assertEquals(IoStatus.OK, write(backing.ram, 0, pattern((int) DEVICE, 1), false));
    }

    private byte[] backingBytes(long offset, int length) {
        return read(backing.ram, offset, length);
    }

    @Test
    void readsMissThenHit() {
        fillBacking();
        cache(WritePolicy.WRITE_THROUGH);
        byte[] expected = Arrays.copyOfRange(pattern((int) DEVICE, 1), 3 * BLOCK - 512, 5 * BLOCK + 1024);
        assertArrayEquals(expected, read(cache, 3 * BLOCK - 512, expected.length));
        assertEquals(4, backing.reads.get(), "cache blocks 3..4 filled, the partial pieces of 2 and 5 read through");
        assertArrayEquals(expected, read(cache, 3 * BLOCK - 512, expected.length));
        assertEquals(6, backing.reads.get(), "reused: the pieces of blocks 2 and 5 are admitted and filled");
        assertArrayEquals(expected, read(cache, 3 * BLOCK - 512, expected.length));
        assertEquals(6, backing.reads.get(), "third read served from the cache");
        CacheCounters.Snapshot s = cache.counters().snapshot();
        assertEquals(6, s.total(s.misses()));
        assertEquals(2, s.total(s.readThroughs()));
        assertEquals(6, s.total(s.hits()));
    }

    @Test
    void twoMissesOnOneBlockCauseOneBackingRead() {
        fillBacking();
        cache(WritePolicy.WRITE_THROUGH);
        backing.hold();
        ByteBuf a = Unpooled.directBuffer(BLOCK);
        ByteBuf b = Unpooled.directBuffer(8192);
        Done da = new Done();
        Done db = new Done();
        cache.read(BLOCK, BLOCK, a, da); // a whole block: filled; the 8 KiB inside it waits for that fill
        cache.read(BLOCK + 16384, 8192, b, db);
        assertFalse(da.isDone());
        assertFalse(db.isDone());
        assertEquals(1, backing.heldCount());
        backing.release();
        assertEquals(IoStatus.OK, da.await());
        assertEquals(IoStatus.OK, db.await());
        assertEquals(1, backing.reads.get());
        byte[] all = pattern((int) DEVICE, 1);
        byte[] got = new byte[8192];
        b.getBytes(0, got);
        assertArrayEquals(Arrays.copyOfRange(all, BLOCK + 16384, BLOCK + 16384 + 8192), got);
        assertEquals(8192, b.writerIndex());
        a.release();
        b.release();
    }

    @Test
    void aFullyPinnedPartitionNeverEvictsAndServesTheMissUncached() {
        fillBacking();
        cache(WritePolicy.WRITE_THROUGH);
        backing.hold();
        Done[] pinned = new Done[4];
        ByteBuf[] bufs = new ByteBuf[5];
        for (int i = 0; i < 4; i++) {
            bufs[i] = Unpooled.directBuffer(BLOCK);
            pinned[i] = new Done();
            cache.read((long) i * 4 * BLOCK, BLOCK, bufs[i], pinned[i]); // blocks 0, 4, 8, 12: all partition 0
        }
        bufs[4] = Unpooled.directBuffer(BLOCK);
        Done fifth = new Done();
        cache.read(16L * BLOCK, BLOCK, bufs[4], fifth);
        CacheCounters.Snapshot s = cache.counters().snapshot();
        assertEquals(1, s.total(s.bypasses()), "the fifth block found every slot pinned");
        backing.release();
        assertEquals(IoStatus.OK, fifth.await());
        for (Done d : pinned) {
            assertEquals(IoStatus.OK, d.await());
        }
        s = cache.counters().snapshot();
        assertEquals(0, s.total(s.evictions()));
        byte[] all = pattern((int) DEVICE, 1);
        byte[] got = new byte[BLOCK];
        bufs[4].getBytes(0, got);
        assertArrayEquals(Arrays.copyOfRange(all, 16 * BLOCK, 17 * BLOCK), got);
        int reads = backing.reads.get();
        for (int i = 0; i < 4; i++) {
            read(cache, (long) i * 4 * BLOCK, BLOCK);
        }
        assertEquals(reads, backing.reads.get(), "the four pinned blocks stayed cached");
        for (ByteBuf b : bufs) {
            b.release();
        }
    }

    @Test
    void writeThroughReachesBackingAndInvalidates() {
        fillBacking();
        cache(WritePolicy.WRITE_THROUGH);
        read(cache, 0, 2 * BLOCK);
        byte[] data = pattern(4096, 9);
        assertEquals(IoStatus.OK, write(cache, BLOCK + 8192, data, false));
        assertArrayEquals(data, backingBytes(BLOCK + 8192, 4096), "on the backing device when acknowledged");
        assertArrayEquals(data, read(cache, BLOCK + 8192, 4096));
        assertEquals(3, backing.reads.get(), "block 1 was invalidated and filled again; block 0 was not");
    }

    @Test
    void writeBackReachesBackingOnFlushNotBefore() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] old = backingBytes(2 * BLOCK, BLOCK);
        byte[] data = pattern(BLOCK, 5);
        assertEquals(IoStatus.OK, write(cache, 2 * BLOCK, data, false));
        assertArrayEquals(old, backingBytes(2 * BLOCK, BLOCK), "not on the backing device before flush");
        assertEquals(0, backing.writes.get());
        assertArrayEquals(data, read(cache, 2 * BLOCK, BLOCK));
        assertEquals(IoStatus.OK, flush(cache));
        assertArrayEquals(data, backingBytes(2 * BLOCK, BLOCK));
        assertEquals(1, backing.writes.get());
        assertEquals(1, backing.flushes.get());
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(1, backing.writes.get(), "a clean block is not written again");
    }

    @Test
    void writeBackPartialBlockReadsOnlyTheGranulesItCoversInPart() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] expected = backingBytes(5 * BLOCK, BLOCK);
        byte[] patch = pattern(1536, 3);
        System.arraycopy(patch, 0, expected, 1024, patch.length);
        assertEquals(IoStatus.OK, write(cache, 5 * BLOCK + 1024, patch, false));
        assertEquals(1, backing.reads.get(), "the granule it covers in part was read first");
        assertEquals(4096, backing.bytesRead.get(), "that granule only");
        assertArrayEquals(expected, read(cache, 5 * BLOCK, BLOCK));
        assertEquals(4096 + BLOCK, backing.bytesRead.get(), "the rest read through, the dirty granule laid over it");
        // a second patch on the dirty block, in a granule it does not hold
        byte[] patch2 = pattern(512, 4);
        System.arraycopy(patch2, 0, expected, BLOCK - 512, 512);
        assertEquals(IoStatus.OK, write(cache, 6 * BLOCK - 512, patch2, false));
        assertEquals(2 * 4096 + BLOCK, backing.bytesRead.get(), "its last granule read, nothing else");
        assertEquals(0, backing.writes.get());
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(2, backing.writes.get(), "the two granules written back, each as a run of its own");
        assertEquals(2 * 4096, backing.bytesWritten.get());
        assertArrayEquals(expected, backingBytes(5 * BLOCK, BLOCK));
    }

    @Test
    void writeBackOfWholeGranulesReadsNothingAndWritesBackOnlyThem() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] expected = backingBytes(3 * BLOCK, BLOCK);
        byte[] a = pattern(4096, 7);
        byte[] b = pattern(8192, 8);
        System.arraycopy(a, 0, expected, 8192, a.length);
        System.arraycopy(b, 0, expected, 40960, b.length);
        assertEquals(IoStatus.OK, write(cache, 3 * BLOCK + 8192, a, false));
        assertEquals(IoStatus.OK, write(cache, 3 * BLOCK + 40960, b, false));
        assertEquals(0, backing.reads.get(), "nothing read for writes of whole granules");
        assertArrayEquals(b, read(cache, 3 * BLOCK + 40960, b.length), "a hit on the dirty granules");
        assertEquals(0, backing.reads.get());
        assertEquals(a.length + b.length, cache.dirtyBytes(), "dirty bytes count the granules written, not the block");
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(0, cache.dirtyBytes());
        assertEquals(a.length + b.length, cache.writebackBytes(), "bytes written back: the two runs");
        assertEquals(2, backing.writes.get(), "two runs");
        assertEquals(a.length + b.length, backing.bytesWritten.get(), "only the written granules reach the device");
        assertArrayEquals(expected, backingBytes(3 * BLOCK, BLOCK), "and the rest of the block is untouched");
        assertArrayEquals(expected, read(cache, 3 * BLOCK, BLOCK), "the clean copy in part, filled from the device");
    }

    @Test
    void smallWritesToACachedBlockNoOneElseHoldsGoInPlaceAndOnlyTheirGranulesAreWrittenBack() {
        fillBacking();
        NumaTopology t = NumaTopology.detect().pretend(2);
        DataTouches touches = twoNodeTouches();
        CacheParameters p = new CacheParameters(8L * BLOCK, BLOCK, 2, 1, 64 * K, WritePolicy.WRITE_BACK);
        cache = CachedBlockDevice.create(
                backing, p, t, NodeMemory.open(t), null, new int[] {0, 1}, touches, WriteBackFlusher.shared());
        byte[] expected = backingBytes(2 * BLOCK, BLOCK);
        assertArrayEquals(expected, read(cache, 2 * BLOCK, BLOCK), "the block is cached whole");
        byte[] a = pattern(4096, 41);
        byte[] b = pattern(4096, 42);
        System.arraycopy(a, 0, expected, 4096, a.length);
        System.arraycopy(b, 0, expected, 12288, b.length);
        long copied = touches.totalBytes();
        assertEquals(IoStatus.OK, write(cache, 2 * BLOCK + 4096, a, false));
        assertEquals(IoStatus.OK, write(cache, 2 * BLOCK + 12288, b, false));
        assertEquals(
                copied + 2 * (a.length + b.length),
                touches.totalBytes(),
                "each write copied its bytes once (read from the request, written into the block), not the block");
        assertEquals(a.length + b.length, cache.dirtyBytes(), "the granules written are dirty, not the whole block");
        assertArrayEquals(expected, read(cache, 2 * BLOCK, BLOCK), "a hit with both writes in it");
        assertEquals(1, backing.reads.get(), "nothing read since the fill");
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(2, backing.writes.get(), "two runs written back");
        assertEquals(a.length + b.length, backing.bytesWritten.get(), "the granules written, not the clean rest");
        assertArrayEquals(expected, backingBytes(2 * BLOCK, BLOCK));
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void twoWritesInOneGranuleOfABlockNotCachedReadItOnceAndBothLand() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] expected = backingBytes(6 * BLOCK, BLOCK);
        byte[] a = pattern(512, 31);
        byte[] b = pattern(512, 32);
        System.arraycopy(a, 0, expected, 512, a.length);
        System.arraycopy(b, 0, expected, 2048, b.length);
        backing.hold();
        Done da = new Done();
        Done db = new Done();
        cache.write(6 * BLOCK + 512, Unpooled.wrappedBuffer(a), false, da);
        cache.write(6 * BLOCK + 2048, Unpooled.wrappedBuffer(b), false, db);
        assertFalse(da.isDone());
        assertFalse(db.isDone());
        assertEquals(1, backing.heldCount(), "the second write waits on the first one's read of the granule");
        backing.release();
        assertEquals(IoStatus.OK, da.await());
        assertEquals(IoStatus.OK, db.await());
        assertEquals(1, backing.reads.get());
        assertEquals(4096, cache.dirtyBytes(), "two writes into one granule: that granule is dirty");
        assertArrayEquals(expected, read(cache, 6 * BLOCK, BLOCK));
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(0, cache.dirtyBytes());
        assertArrayEquals(expected, backingBytes(6 * BLOCK, BLOCK));
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void aWriteBackWriteWhoseGranuleCannotBeReadFailsAndLeavesTheBlockAsItWas() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] old = backingBytes(4 * BLOCK, BLOCK);
        backing.failReads(true);
        assertEquals(IoStatus.MEDIUM_ERROR, write(cache, 4 * BLOCK + 512, pattern(512, 9), false));
        backing.failReads(false);
        assertEquals(0, cache.pinnedSlots(), "the copy was let go");
        assertArrayEquals(old, read(cache, 4 * BLOCK, BLOCK));
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(0, backing.writes.get(), "nothing was dirtied");
    }

    @Test
    void writeBackFuaAndCloseFlush() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] a = pattern(BLOCK, 11);
        byte[] b = pattern(BLOCK, 12);
        assertEquals(IoStatus.OK, write(cache, 0, a, false));
        assertEquals(IoStatus.OK, write(cache, 7 * BLOCK, b, true));
        assertArrayEquals(b, backingBytes(7 * BLOCK, BLOCK), "FUA: durable when acknowledged");
        assertArrayEquals(a, backingBytes(0, BLOCK), "the FUA flush takes earlier dirty blocks along");
        byte[] c = pattern(BLOCK, 13);
        assertEquals(IoStatus.OK, write(cache, 9 * BLOCK, c, false));
        assertFalse(Arrays.equals(c, backingBytes(9 * BLOCK, BLOCK)));
        cache.close();
        cache = null;
        assertArrayEquals(c, backingBytes(9 * BLOCK, BLOCK), "close flushes");
        assertTrue(backing.closed);
    }

    @Test
    void writeBackUnderSlotPressureParksAndWritesBack() {
        fillBacking();
        cache(WritePolicy.WRITE_BACK);
        byte[] data = pattern(48 * BLOCK, 21); // three times the 16 cache blocks
        assertEquals(IoStatus.OK, write(cache, 0, data, false));
        assertTrue(backing.writes.get() > 0, "dirty blocks were written back to make room");
        assertArrayEquals(data, read(cache, 0, data.length));
        assertEquals(IoStatus.OK, flush(cache));
        assertArrayEquals(data, backingBytes(0, data.length));
    }

    @Test
    void unmapKeepsTheCacheCoherent() {
        for (WritePolicy policy : WritePolicy.values()) {
            fillBacking();
            cache(policy);
            byte[] expected = read(cache, 0, 4 * BLOCK);
            if (policy == WritePolicy.WRITE_BACK) {
                byte[] dirty = pattern(BLOCK, 30);
                assertEquals(IoStatus.OK, write(cache, 2 * BLOCK, dirty, false));
                System.arraycopy(dirty, 0, expected, 2 * BLOCK, BLOCK);
            }
            assertEquals(IoStatus.OK, unmap(cache, BLOCK + 4096, 2 * BLOCK));
            Arrays.fill(expected, BLOCK + 4096, 3 * BLOCK + 4096, (byte) 0);
            assertArrayEquals(expected, read(cache, 0, 4 * BLOCK), policy + ": reads see the unmap");
            assertEquals(IoStatus.OK, flush(cache));
            assertArrayEquals(expected, backingBytes(0, 4 * BLOCK), policy + ": backing agrees after flush");
            cache.close();
            cache = null;
        }
    }

    @Test
    void writeSameArrivesAsAWriteAndIsSeen() {
        fillBacking();
        cache(WritePolicy.WRITE_THROUGH);
        read(cache, 0, BLOCK);
        byte[] same = new byte[8 * 512];
        Arrays.fill(same, (byte) 0x5a);
        assertEquals(IoStatus.OK, write(cache, 512, same, false));
        assertArrayEquals(same, read(cache, 512, same.length));
    }

    @Test
    void largeReadsAreForwardedOnceToTheNodeHoldingTheirBytes() throws Exception {
        fillBacking();
        NumaTopology t = NumaTopology.detect().pretend(2);
        ExecutorService[] workers = new ExecutorService[2];
        for (int n = 0; n < 2; n++) {
            workers[n] = Executors.newSingleThreadExecutor(CpuPinning.threadFactory(t.node(n), "w" + n, true));
        }
        try {
            // neighbours 2: blocks 2-3 (offset 128K..256K) are group 1, node 1
            CacheParameters p = new CacheParameters(8L * BLOCK, BLOCK, 2, 2, 64 * K, WritePolicy.WRITE_THROUGH);
            DataTouches touches = twoNodeTouches();
            cache = CachedBlockDevice.create(
                    backing,
                    p,
                    t,
                    NodeMemory.open(t),
                    new Executor[] {workers[0], workers[1]},
                    new int[] {0, 1},
                    touches,
                    WriteBackFlusher.shared());
            byte[] all = pattern((int) DEVICE, 1);
            assertArrayEquals(Arrays.copyOfRange(all, 2 * BLOCK, 4 * BLOCK), read(cache, 2L * BLOCK, 2 * BLOCK));
            assertArrayEquals(Arrays.copyOfRange(all, 2 * BLOCK, 4 * BLOCK), read(cache, 2L * BLOCK, 2 * BLOCK));
            read(cache, 0, 4096); // small: served on the calling thread
            CacheCounters.Snapshot s = cache.counters().snapshot();
            assertEquals(0, s.forwards()[0]);
            assertEquals(2, s.forwards()[1]);
            assertEquals(
                    4L * BLOCK,
                    touches.bytes(DataTouches.Kind.COPY, 1, 1),
                    "copied by node 1's worker from node 1's blocks");
            assertEquals(0, touches.bytes(DataTouches.Kind.COPY, 0, 1));
        } finally {
            for (ExecutorService w : workers) {
                w.shutdownNow();
            }
        }
    }

    @Test
    void outOfRangeAndClosed() {
        cache(WritePolicy.WRITE_THROUGH);
        Done d = new Done();
        cache.read(DEVICE - 512, 1024, Unpooled.buffer(1024), d);
        assertEquals(IoStatus.OUT_OF_RANGE, d.await());
        cache.close();
        Done e = new Done();
        cache.read(0, 512, Unpooled.buffer(512), e);
        assertEquals(IoStatus.UNAVAILABLE, e.await());
        cache = null;
    }
}
