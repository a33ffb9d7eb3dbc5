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

    @Test
    void aBatchWritesAtMostBatchInFlightBlocksAtOnce() {
        HeldWrites device = new HeldWrites();
        CachedBlockDevice cache = Support.cache(device, 128 * BLOCK, BLOCK, 1, 1, WritePolicy.WRITE_BACK);
        try {
            for (int b = 0; b < DIRTY; b++) {
                assertEquals(IoStatus.OK, Support.write(cache, (long) b * BLOCK, Support.pattern(BLOCK, b), false));
            }
            Done flushed = new Done();
            cache.flush(flushed);
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
}
