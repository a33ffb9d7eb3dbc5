package io.numaiscsi.cache;

import static io.numaiscsi.cache.Support.flush;
import static io.numaiscsi.cache.Support.pattern;
import static io.numaiscsi.cache.Support.read;
import static io.numaiscsi.cache.Support.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.cache.Support.CountingDevice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which misses take a slot and how much they fill: read-through, admit on reuse, sequential read-ahead. */
class AdmissionTest {
    private static final int K = 1024;
    private static final int BLOCK = 512 * K;
    private static final long DEVICE = 16L << 20;
    private static final ByteBufAllocator ALLOC = new UnpooledByteBufAllocator(true);

    private final CountingDevice backing = new CountingDevice(DEVICE);
    private final byte[] data = pattern((int) DEVICE, 3);
    private CachedBlockDevice cache;

    /** 2 nodes x 2 partitions x 4 slots of 512 KiB, neighbours 1. */
    private void open(WritePolicy policy) {
        assertEquals(IoStatus.OK, write(backing.ram, 0, data, false));
        cache = Support.cache(backing, 4L * BLOCK * 2, BLOCK, 2, 1, policy);
    }

    @AfterEach
    void close() {
        if (cache != null) {
            cache.close();
        }
    }

    private byte[] expected(long offset, int length) {
        return Arrays.copyOfRange(data, (int) offset, (int) offset + length);
    }

    private void check(long offset, int length) {
        assertArrayEquals(expected(offset, length), read(cache, offset, length), "bytes at " + offset);
    }

    private CacheCounters.Snapshot counters() {
        return cache.counters().snapshot();
    }

    @Test
    void aSmallMissOnABlockNotCachedReadsOnlyItsOwnBytes() {
        open(WritePolicy.WRITE_THROUGH);
        check(5L * BLOCK + 12 * K, 4 * K);
        assertEquals(4 * K, backing.bytesRead.get(), "4 KiB from the backing device, not the 512 KiB block");
        CacheCounters.Snapshot s = counters();
        assertEquals(1, s.total(s.misses()));
        assertEquals(1, s.total(s.readThroughs()));
        assertEquals(0, s.total(s.hits()));
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void aReadThroughReachesTheBackingDeviceWithTheCallersOwnBufferAndCompletion() throws Exception {
        open(WritePolicy.WRITE_THROUGH);
        ByteBuf dst = ALLOC.directBuffer(4 * K);
        CountDownLatch done = new CountDownLatch(1);
        IoCompletion completion = st -> done.countDown();
        cache.read(9L * BLOCK + 20 * K, 4 * K, dst, completion);
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertTrue(
                backing.lastReadBuffer == dst && backing.lastReadCompletion == completion,
                "no request of the cache between the caller and the backing device");
        byte[] got = new byte[4 * K];
        dst.getBytes(0, got);
        assertArrayEquals(expected(9L * BLOCK + 20 * K, 4 * K), got);
        dst.release();
        CacheCounters.Snapshot s = counters();
        assertEquals(1, s.total(s.readThroughs()));
        assertEquals(1, s.total(s.misses()));
    }

    /** 4 KiB pieces at distinct granules of the first {@code blocks} blocks, in a random order. */
    private static long[] randomPieces(int blocks, int count, long seed) {
        List<Long> all = new ArrayList<>();
        for (long g = 0; g < (long) blocks * BLOCK / (4 * K); g++) {
            all.add(g * 4 * K);
        }
        Collections.shuffle(all, new Random(seed));
        return all.subList(0, count).stream().mapToLong(Long::longValue).toArray();
    }

    /** A LUN that fits: once its partitions stop evicting, random misses fill without reuse, and reading again hits. */
    @Test
    void randomReadsOfALunThatFitsWarmTheCacheOnceNothingIsEvicted() {
        open(WritePolicy.WRITE_THROUGH);
        long[] pieces = randomPieces(16, 600, 1); // 16 blocks: as many as the cache has slots, 4 per partition
        for (long at : pieces) {
            check(at, 4 * K);
        }
        CacheCounters.Snapshot first = counters();
        assertEquals(0, first.total(first.evictions()));
        assertTrue(
                first.total(first.readThroughs()) <= 4 * 4 * 4 + 4,
                "strict only until each partition settled (4 x its 4 slots of misses): "
                        + first.total(first.readThroughs()));
        for (int i = 100; i < pieces.length; i++) {
            check(pieces[i], 4 * K);
        }
        CacheCounters.Snapshot second = counters();
        assertEquals(first.total(first.hits()) + 500, second.total(second.hits()), "the second pass hits throughout");
    }

    /**
     * A LUN larger than the cache: misses on blocks it does not hold read through and rarely evict, misses on blocks it
     * holds fill their granules into the block's slot, so the blocks held fill up and serve a share of the reads close
     * to the share of the LUN they hold (before, a block kept only the granules that brought it in: hits were a few
     * percent).
     */
    @Test
    void randomReadsOfALunLargerThanTheCacheFillTheBlocksItHolds() {
        open(WritePolicy.WRITE_THROUGH);
        Random random = new Random(5);
        int reads = 6000;
        CacheCounters.Snapshot half = null;
        for (int i = 0; i < reads; i++) {
            check(
                    (long) random.nextInt((int) (DEVICE / (64 * K))) * 64 * K,
                    64 * K); // twice the cache, 8 pieces a block
            if (i == reads / 2) {
                half = counters();
            }
        }
        CacheCounters.Snapshot s = counters();
        long hits = s.total(s.hits()) - half.total(half.hits());
        assertTrue(
                hits * 100 >= (reads / 2) * 35L,
                hits + " of the last " + reads / 2
                        + " reads hit (the cache holds half; 28% before the blocks held were filled)");
        assertTrue(s.total(s.readThroughs()) > 0, "blocks not held read through");
        assertTrue(s.total(s.evictions()) * 10 <= reads, s.total(s.evictions()) + " evictions in " + reads + " reads");
    }

    @Test
    void aSecondMissOnTheBlockIsAdmittedAsASubBlockFillAndTheThirdReadHits() {
        open(WritePolicy.WRITE_THROUGH);
        long at = 7L * BLOCK + 64 * K;
        check(at, 4 * K);
        check(at, 4 * K);
        assertEquals(8 * K, backing.bytesRead.get(), "the admitted miss filled only its granule");
        CacheCounters.Snapshot s = counters();
        assertEquals(2, s.total(s.misses()));
        assertEquals(1, s.total(s.readThroughs()));
        check(at, 4 * K);
        assertEquals(8 * K, backing.bytesRead.get(), "third read: a hit");
        s = counters();
        assertEquals(1, s.total(s.hits()));
        // another granule of the now cached block: the slot is there, so the rest of the block is filled into it at
        // once, in one backing read (nothing evicted), and every later read of the block hits
        check(at + 100 * K, 2 * K);
        assertEquals(8 * K + BLOCK, backing.bytesRead.get(), "the block's granules not yet valid filled in one read");
        check(at + 101 * K, K);
        check(7L * BLOCK + 500 * K, 4 * K);
        assertEquals(8 * K + BLOCK, backing.bytesRead.get());
        s = counters();
        assertEquals(3, s.total(s.hits()));
        assertEquals(1, s.total(s.readThroughs()));
        assertEquals(0, s.total(s.evictions()), "one slot all along");
    }

    /** A write-through write to a held block takes out only the granules it touches; the rest of the block still hits. */
    @Test
    void aWriteThroughKeepsTheRestOfTheBlock() {
        open(WritePolicy.WRITE_THROUGH);
        check(5L * BLOCK, BLOCK); // a whole-block random read: the block is held, whole
        byte[] fresh = pattern(6 * K, 9);
        assertEquals(IoStatus.OK, write(cache, 5L * BLOCK + 62 * K, fresh, false)); // granules 15..16
        System.arraycopy(fresh, 0, data, (int) (5L * BLOCK + 62 * K), fresh.length);
        long before = backing.bytesRead.get();
        CacheCounters.Snapshot s0 = counters();
        check(5L * BLOCK, 60 * K);
        check(5L * BLOCK + 100 * K, 300 * K);
        CacheCounters.Snapshot s1 = counters();
        assertEquals(before, backing.bytesRead.get(), "the granules the write did not touch are still valid");
        assertEquals(s0.total(s0.hits()) + 2, s1.total(s1.hits()));
        check(5L * BLOCK + 56 * K, 16 * K); // over the written range: its two granules are filled again, new bytes
        assertEquals(before + 8 * K, backing.bytesRead.get());
        check(5L * BLOCK + 60 * K, 8 * K);
        assertEquals(before + 8 * K, backing.bytesRead.get());
        assertEquals(0, cache.pinnedSlots());
    }

    /**
     * Where a slot would evict a block in use, a piece read through once more is chance on a LUN larger than the cache;
     * read through twice in a row within the window it is hot and takes a slot.
     */
    @Test
    void inAFullCacheAPieceTakesASlotOnlyOnItsSecondReuse() {
        open(WritePolicy.WRITE_THROUGH);
        for (int i = 0; i < 32; i++) { // every block once, whole, in no sequential order: 16 slots, 16 evictions
            check((i * 3L % 32) * BLOCK, BLOCK);
        }
        CacheCounters.Snapshot s0 = counters();
        assertEquals(16, s0.total(s0.evictions()));
        long at = 12 * K; // block 0, read first, evicted since
        check(at, 4 * K);
        check(at, 4 * K);
        CacheCounters.Snapshot s1 = counters();
        assertEquals(2, s1.total(s1.readThroughs()) - s0.total(s0.readThroughs()), "one reuse is not enough");
        check(at, 4 * K);
        check(at, 4 * K);
        CacheCounters.Snapshot s2 = counters();
        assertEquals(s1.total(s1.readThroughs()), s2.total(s2.readThroughs()), "the second reuse filled it");
        assertEquals(s1.total(s1.hits()) + 1, s2.total(s2.hits()));
    }

    /** Reuse means the same bytes: 4 KiB random reads elsewhere in a block read through take no slot. */
    @Test
    void anotherPieceOfABlockReadThroughIsNoReuseAndReadsThroughToo() {
        open(WritePolicy.WRITE_THROUGH);
        long block = 11L * BLOCK;
        check(block + 64 * K, 4 * K);
        check(block + 200 * K, 4 * K);
        check(block + 8 * K, 8 * K);
        CacheCounters.Snapshot s = counters();
        assertEquals(3, s.total(s.readThroughs()));
        assertEquals(16 * K, backing.bytesRead.get());
        assertEquals(0, cache.pinnedSlots());
        check(block + 10 * K, 4 * K); // overlaps the 8 KiB piece just read through: admitted, its granule filled
        s = counters();
        assertEquals(3, s.total(s.readThroughs()));
        check(block + 10 * K, 4 * K);
        assertEquals(1, counters().total(counters().hits()));
    }

    @Test
    void sequentialSmallReadsFillWholeBlocksAndThenHit() {
        open(WritePolicy.WRITE_THROUGH);
        long start = 3L * BLOCK;
        for (long at = start; at < start + 2 * BLOCK; at += 4 * K) {
            check(at, 4 * K);
        }
        assertEquals(
                4 * K + 2L * BLOCK,
                backing.bytesRead.get(),
                "the first read goes through; the stream then reads each block whole, once");
        CacheCounters.Snapshot s = counters();
        assertEquals(2 * BLOCK / (4 * K) - 3, s.total(s.hits()));
        for (long at = start; at < start + 2 * BLOCK; at += 64 * K) {
            check(at, 64 * K);
        }
        assertEquals(4 * K + 2L * BLOCK, backing.bytesRead.get(), "everything since served from the cache");
    }

    @Test
    void aWholeBlockPieceFillsTheBlock() {
        open(WritePolicy.WRITE_THROUGH);
        check(2L * BLOCK, BLOCK);
        assertEquals(BLOCK, backing.bytesRead.get());
        check(2L * BLOCK + 300 * K, 4 * K);
        assertEquals(BLOCK, backing.bytesRead.get());
    }

    @Test
    void aSequentialScanOfWholeBlocksReadsThroughAndTakesNoSlot() {
        open(WritePolicy.WRITE_THROUGH);
        check(0, BLOCK); // the first read of the stream is a random whole-block read: filled
        for (long at = BLOCK; at < 16L * BLOCK; at += BLOCK) {
            check(at, BLOCK);
        }
        CacheCounters.Snapshot s = counters();
        assertEquals(15, s.total(s.readThroughs()), "the rest of the scan went straight to the caller's buffer");
        assertEquals(0, s.total(s.evictions()));
        assertEquals(16L * BLOCK, backing.bytesRead.get());
        check(8L * BLOCK + 4 * K, 8 * K); // a block of the scan used again soon after: admitted
        check(8L * BLOCK + 4 * K, 8 * K);
        s = counters();
        assertEquals(1, s.total(s.hits()));
    }

    @Test
    void aSlotPinnedByAnotherReaderIsNotRefilledButReadThrough() {
        open(WritePolicy.WRITE_THROUGH);
        long at = 9L * BLOCK;
        check(at, 4 * K);
        check(at, 4 * K); // admitted: granule 0 of the block is cached
        ByteBuf view = readShared(at, 4 * K);
        assertEquals(1, cache.pinnedSlots());
        long before = backing.bytesRead.get();
        CacheCounters.Snapshot s0 = counters();
        check(at + 8 * K, 4 * K);
        CacheCounters.Snapshot s1 = counters();
        assertEquals(1, s1.total(s1.readThroughs()) - s0.total(s0.readThroughs()), "the pinned slot was left alone");
        assertEquals(before + 4 * K, backing.bytesRead.get());
        byte[] held = new byte[4 * K];
        view.getBytes(view.readerIndex(), held);
        assertArrayEquals(expected(at, 4 * K), held);
        view.release();
        check(at + 8 * K, 4 * K); // unpinned now: filled into the slot
        check(at + 8 * K, 4 * K);
        CacheCounters.Snapshot s2 = counters();
        assertEquals(s1.total(s1.readThroughs()), s2.total(s2.readThroughs()));
        assertEquals(s1.total(s1.hits()) + 1, s2.total(s2.hits()));
    }

    @Test
    void aSharedReadOfReadThroughPiecesIsOneCopyAndOfFilledPiecesInPlace() {
        open(WritePolicy.WRITE_THROUGH);
        long at = 4L * BLOCK + 40 * K;
        ByteBuf first = readShared(at, 8 * K);
        byte[] got = new byte[8 * K];
        first.getBytes(first.readerIndex(), got);
        assertArrayEquals(expected(at, 8 * K), got);
        first.release();
        assertEquals(0, counters().total(counters().inPlaceBytes()), "read through: its own buffer");
        ByteBuf second = readShared(at, 8 * K);
        second.getBytes(second.readerIndex(), got);
        assertArrayEquals(expected(at, 8 * K), got);
        assertEquals(8 * K, counters().total(counters().inPlaceBytes()), "admitted and filled: served in place");
        second.release();
        assertEquals(0, cache.pinnedSlots());
    }

    @Test
    void writeThroughAfterSubBlockFillsIsSeen() {
        open(WritePolicy.WRITE_THROUGH);
        long at = 6L * BLOCK + 16 * K;
        check(at, 4 * K);
        check(at, 4 * K);
        byte[] patch = pattern(4 * K + 512, 17);
        assertEquals(IoStatus.OK, write(cache, at + 2 * K, patch, false));
        System.arraycopy(patch, 0, data, (int) at + 2 * K, patch.length);
        check(at, 4 * K);
        check(at, 4 * K);
        check(at, 12 * K);
        check(6L * BLOCK, BLOCK);
    }

    @Test
    void writeBackOnAPartlyValidSlotReadsOnlyTheGranuleItCoversInPartAndWritesBackOnlyWhatWasWritten() {
        open(WritePolicy.WRITE_BACK);
        long block = 11L * BLOCK;
        check(block + 8 * K, 4 * K);
        check(block + 8 * K, 4 * K); // the slot now holds granule 2 only
        long before = backing.bytesRead.get();
        byte[] patch = pattern(1536, 23);
        assertEquals(IoStatus.OK, write(cache, block + 20 * K + 512, patch, false));
        System.arraycopy(patch, 0, data, (int) block + 20 * K + 512, patch.length);
        assertEquals(
                before + 4 * K, backing.bytesRead.get(), "only granule 5, which the write covers in part, was read");
        check(block + 20 * K, 4 * K);
        check(block + 8 * K, 4 * K);
        assertEquals(before + 4 * K, backing.bytesRead.get(), "the dirty copy holds granules 2 and 5: hits");
        check(block, BLOCK);
        assertEquals(
                before + 4 * K + BLOCK,
                backing.bytesRead.get(),
                "the rest of the block read through, the copy's granules laid over it");
        int writesBefore = backing.writes.get();
        assertEquals(IoStatus.OK, flush(cache));
        assertEquals(
                writesBefore + 1,
                backing.writes.get(),
                "one run written back: granule 5 (granule 2 is clean, a fill's)");
        assertArrayEquals(expected(block, BLOCK), read(backing.ram, block, BLOCK), "written back right");
    }

    private ByteBuf readShared(long offset, int length) {
        CountDownLatch latch = new CountDownLatch(1);
        ByteBuf[] out = new ByteBuf[1];
        IoStatus[] st = new IoStatus[1];
        assertTrue(cache.readShared(offset, length, ALLOC, (status, buf) -> {
            st[0] = status;
            out[0] = buf;
            latch.countDown();
        }));
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertEquals(IoStatus.OK, st[0]);
        assertEquals(length, out[0].readableBytes());
        return out[0];
    }
}
