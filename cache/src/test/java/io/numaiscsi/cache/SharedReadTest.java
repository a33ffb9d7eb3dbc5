package io.numaiscsi.cache;

import static io.numaiscsi.cache.Support.pattern;
import static io.numaiscsi.cache.Support.read;
import static io.numaiscsi.cache.Support.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.SharedRead;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.cache.Support.CountingDevice;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reads served in place: a buffer over the pinned cache blocks themselves, no copy, pins held until released. */
class SharedReadTest {
    private static final int K = 1024;
    private static final int BLOCK = 64 * K;
    private static final long DEVICE = 4L << 20;
    private static final ByteBufAllocator ALLOC = new UnpooledByteBufAllocator(true);

    private final CountingDevice backing = new CountingDevice(DEVICE);
    private final byte[] data = pattern((int) DEVICE, 7);
    private CachedBlockDevice cache;

    @AfterEach
    void close() {
        if (cache != null) {
            cache.close();
        }
    }

    /** 2 nodes x 2 partitions x 4 slots of 64 KiB: block b is in partition b mod 4. */
    private void open(WritePolicy policy) {
        assertEquals(IoStatus.OK, write(backing.ram, 0, data, false));
        cache = Support.cache(backing, 8 * BLOCK, BLOCK, 2, 1, policy);
    }

    @Test
    void aReadAcrossBlocksIsAViewOfTheCacheMemoryAndUnpinsOnRelease() {
        open(WritePolicy.WRITE_THROUGH);
        long offset = BLOCK - 4 * K; // the last 4 KiB of block 0, all of blocks 1 and 2, 8 KiB of block 3
        int length = 4 * K + 2 * BLOCK + 8 * K;
        read(cache, offset, length); // the partial pieces are read through once; read again they are filled
        CacheCounters.Snapshot before = cache.counters().snapshot();
        ByteBuf view = readShared(offset, length);
        assertArrayEquals(Arrays.copyOfRange(data, (int) offset, (int) offset + length), bytes(view));
        assertEquals(4, cache.pinnedSlots(), "the four blocks stay pinned while the view lives");
        for (ByteBuffer piece : view.nioBuffers()) {
            assertTrue(insideCacheMemory(piece), "every piece lies in the cache's own memory");
        }
        CacheCounters.Snapshot s = cache.counters().snapshot();
        assertEquals(length, s.total(s.inPlaceBytes()) - before.total(before.inPlaceBytes()));
        view.release();
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void aPinnedBlockKeepsItsBytesWhileTheLbaIsRewritten() {
        for (WritePolicy policy : WritePolicy.values()) {
            open(policy);
            ByteBuf view = readShared(0, BLOCK);
            byte[] fresh = pattern(BLOCK, 99);
            assertEquals(IoStatus.OK, write(cache, 0, fresh, false));
            assertArrayEquals(Arrays.copyOf(data, BLOCK), bytes(view), policy + ": the view still holds what was read");
            assertArrayEquals(fresh, read(cache, 0, BLOCK), policy + ": a new read sees the write");
            view.release();
            cache.close();
            cache = null;
        }
    }

    @Test
    void aFullPartitionFallsBackToOneCopy() {
        open(WritePolicy.WRITE_THROUGH);
        ByteBuf[] held = new ByteBuf[4];
        for (int i = 0; i < 4; i++) {
            held[i] = readShared((long) i * 4 * BLOCK, BLOCK); // blocks 0, 4, 8, 12: every slot of partition 0 pinned
        }
        ByteBuf copied = readShared(16L * BLOCK, BLOCK);
        assertArrayEquals(Arrays.copyOfRange(data, 16 * BLOCK, 17 * BLOCK), bytes(copied));
        assertFalse(insideCacheMemory(copied.nioBuffer()), "served from a buffer of its own");
        copied.release();
        for (ByteBuf b : held) {
            b.release();
        }
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void aFailedFillReportsTheErrorAndPinsNothing() {
        open(WritePolicy.WRITE_THROUGH);
        backing.failReads(true);
        Result r = new Result();
        assertTrue(cache.readShared(0, BLOCK, ALLOC, r));
        assertEquals(IoStatus.MEDIUM_ERROR, r.await());
        assertNull(r.data);
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void outOfRangeIsRefusedWithoutAView() {
        open(WritePolicy.WRITE_THROUGH);
        Result r = new Result();
        assertTrue(cache.readShared(DEVICE - 4 * K, 8 * K, ALLOC, r));
        assertEquals(IoStatus.OUT_OF_RANGE, r.await());
        assertNull(r.data);
    }

    private ByteBuf readShared(long offset, int length) {
        Result r = new Result();
        assertTrue(cache.readShared(offset, length, ALLOC, r));
        assertEquals(IoStatus.OK, r.await());
        assertNotNull(r.data);
        assertEquals(length, r.data.readableBytes());
        return r.data;
    }

    private boolean insideCacheMemory(ByteBuffer piece) {
        long at = PlatformDependent.directBufferAddress(piece);
        for (ByteBuffer region : cache.memory()) {
            long base = PlatformDependent.directBufferAddress(region);
            if (at >= base && at + piece.remaining() <= base + region.capacity()) {
                return true;
            }
        }
        return false;
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    private static final class Result implements SharedRead {
        private final CountDownLatch latch = new CountDownLatch(1);
        volatile IoStatus status;
        volatile ByteBuf data;

        @Override
        public void sharedReadDone(IoStatus st, ByteBuf buf) {
            status = st;
            data = buf;
            latch.countDown();
        }

        IoStatus await() {
            try {
                assertTrue(latch.await(10, TimeUnit.SECONDS), "the read did not complete");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return status;
        }
    }
}
