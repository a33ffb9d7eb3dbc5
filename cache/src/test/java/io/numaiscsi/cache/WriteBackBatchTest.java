package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.Support.Done;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/** A write-back batch keeps at most a command queue's worth of blocks in flight, so reads do not wait behind all of it. */
class WriteBackBatchTest {
    private static final int BLOCK = 4096;
    private static final int DIRTY = 40;

    /** Holds every write until released, and remembers how many it held at once. */
    private static final class HeldWrites extends RamBackedDevice {
        private final ArrayDeque<Runnable> held = new ArrayDeque<>();
        private int most;

        HeldWrites() {
            super(new RamBlockDevice(16L << 20, 512));
        }

        @Override
        public synchronized void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            ByteBuf copy = Unpooled.copiedBuffer(src);
            held.add(() -> ram.write(offset, copy, fua, done));
            most = Math.max(most, held.size());
        }

        synchronized int held() {
            return held.size();
        }

        synchronized int most() {
            return most;
        }

        /** Completes the held writes one by one, and those they lead to. */
        void releaseAll() {
            while (true) {
                Runnable r;
                synchronized (this) {
                    r = held.poll();
                }
                if (r == null) {
                    return;
                }
                r.run();
            }
        }
    }

    /** Writes {@link #DIRTY} blocks (block b holds pattern b) and asks for a flush. */
    private static Done dirtyBlocksThenFlush(CachedBlockDevice cache) {
        for (int b = 0; b < DIRTY; b++) {
            assertEquals(IoStatus.OK, Support.write(cache, (long) b * BLOCK, Support.pattern(BLOCK, b), false));
        }
        Done flushed = new Done();
        cache.flush(flushed);
        return flushed;
    }

    @Test
    void aBatchWritesAtMostBatchInFlightBlocksAtOnce() {
        HeldWrites device = new HeldWrites();
        CachedBlockDevice cache = Support.cache(device, 128 * BLOCK, BLOCK, 1, 1, WritePolicy.WRITE_BACK);
        try {
            Done flushed = dirtyBlocksThenFlush(cache);
            assertEquals(WriteBackScheduler.BATCH_IN_FLIGHT, device.held(), "a queue's worth of the dirty blocks");
            assertFalse(flushed.isDone());
            device.releaseAll();
            assertEquals(IoStatus.OK, flushed.await());
            assertEquals(WriteBackScheduler.BATCH_IN_FLIGHT, device.most(), "never more at once");
            for (int b = 0; b < DIRTY; b++) {
                assertArrayEquals(Support.pattern(BLOCK, b), Support.read(device.ram, (long) b * BLOCK, BLOCK));
            }
        } finally {
            device.releaseAll();
            cache.close();
        }
    }

    @Test
    void aBlockWhoseTurnHasNotComeIsWrittenAsItIsWhenItComes() {
        HeldWrites device = new HeldWrites();
        CachedBlockDevice cache = Support.cache(device, 128 * BLOCK, BLOCK, 1, 1, WritePolicy.WRITE_BACK);
        try {
            Done flushed = dirtyBlocksThenFlush(cache);
            assertEquals(WriteBackScheduler.BATCH_IN_FLIGHT, device.held());
            int last = DIRTY - 1;
            byte[] newer = Support.pattern(BLOCK, 99);
            assertEquals(IoStatus.OK, Support.write(cache, (long) last * BLOCK, newer, false));
            device.releaseAll();
            assertEquals(IoStatus.OK, flushed.await());
            assertArrayEquals(newer, Support.read(device.ram, (long) last * BLOCK, BLOCK), "its version at its turn");
            assertEquals(0, cache.dirtyBytes(), "nothing left dirty: the newer write went with the batch");
        } finally {
            device.releaseAll();
            cache.close();
        }
    }

    @Test
    void aBlockSupersededWhileItIsWrittenBackStillWritesWhatTheFlushCovers() {
        int block = 64 * 1024;
        int granule = 4096;
        HeldWrites device = new HeldWrites();
        CachedBlockDevice cache = Support.cache(device, 16L * block, block, 1, 1, WritePolicy.WRITE_BACK);
        try {
            byte[] a = Support.pattern(granule, 1);
            byte[] b = Support.pattern(granule, 2);
            byte[] c = Support.pattern(granule, 3);
            assertEquals(IoStatus.OK, Support.write(cache, granule, a, false));
            assertEquals(IoStatus.OK, Support.write(cache, 5L * granule, b, false));
            Done flushed = new Done();
            cache.flush(flushed);
            assertEquals(1, device.held(), "the block's first run (granule 1) is being written");
            // the block is being written back: this write makes a new copy of it, which replaces it
            assertEquals(IoStatus.OK, Support.write(cache, 9L * granule, c, false));
            device.releaseAll();
            assertEquals(IoStatus.OK, flushed.await());
            assertArrayEquals(a, Support.read(device.ram, granule, granule));
            assertArrayEquals(
                    b, Support.read(device.ram, 5L * granule, granule), "the second run, written before the flush");
            assertEquals(
                    3 * granule,
                    cache.dirtyBytes(),
                    "the copy: the later write's granule and the two it took over (their write-back could have failed)");
            Done again = new Done();
            cache.flush(again);
            device.releaseAll();
            assertEquals(IoStatus.OK, again.await());
            assertArrayEquals(c, Support.read(device.ram, 9L * granule, granule));
        } finally {
            device.releaseAll();
            cache.close();
        }
    }
}
