package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Test helpers: a blocking completion, a counting/holding backing device, cache construction. */
final class Support {
    private Support() {}

    static CachedBlockDevice cache(
            BlockDevice backing, long sizePerNode, int blockSize, int partitions, int neighbours, WritePolicy policy) {
        NumaTopology t = NumaTopology.detect().nodeCount() >= 2
                ? NumaTopology.detect()
                : NumaTopology.detect().pretend(2);
        CacheParameters p = new CacheParameters(sizePerNode, blockSize, partitions, neighbours, 64 * 1024, policy);
        return CachedBlockDevice.create(backing, p, t, NodeMemory.open(t), null);
    }

    /** Completion that can be awaited. */
    static final class Done implements IoCompletion {
        private final CountDownLatch latch = new CountDownLatch(1);
        volatile IoStatus status;

        @Override
        public void ioComplete(IoStatus st) {
            status = st;
            latch.countDown();
        }

        boolean isDone() {
            return latch.getCount() == 0;
        }

        IoStatus await() {
            try {
                assertTrue(latch.await(10, TimeUnit.SECONDS), "I/O did not complete");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return status;
        }
    }

    static byte[] read(BlockDevice d, long offset, int length) {
        ByteBuf b = Unpooled.directBuffer(length);
        try {
            Done done = new Done();
            d.read(offset, length, b, done);
            if (done.await() != IoStatus.OK) {
                throw new AssertionError("read failed: " + done.status);
            }
            byte[] out = new byte[b.readableBytes()];
            b.getBytes(0, out);
            return out;
        } finally {
            b.release();
        }
    }

    static IoStatus write(BlockDevice d, long offset, byte[] data, boolean fua) {
        ByteBuf b = Unpooled.wrappedBuffer(data);
        Done done = new Done();
        d.write(offset, b, fua, done);
        return done.await();
    }

    static IoStatus flush(BlockDevice d) {
        Done done = new Done();
        d.flush(done);
        return done.await();
    }

    static IoStatus unmap(BlockDevice d, long offset, long length) {
        Done done = new Done();
        d.unmap(offset, length, done);
        return done.await();
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 9));
        }
        return b;
    }

    /**
     * A RAM disk that counts backing reads and writes; with {@link #hold()} its reads wait until
     * {@link #release()} (completing on the releasing thread), so tests control the fill timing.
     */
    static final class CountingDevice extends RamBackedDevice {
        final AtomicInteger reads = new AtomicInteger();
        final AtomicLong bytesRead = new AtomicLong();
        final AtomicInteger writes = new AtomicInteger();
        final AtomicLong bytesWritten = new AtomicLong();
        final AtomicInteger flushes = new AtomicInteger();
        /** The buffer and completion of the last read asked of this device. */
        volatile ByteBuf lastReadBuffer;

        volatile IoCompletion lastReadCompletion;
        private boolean holding;
        private volatile boolean failReads;
        private final List<Runnable> held = new ArrayList<>();

        CountingDevice(long size) {
            super(new RamBlockDevice(size, 512));
        }

        /** From now on every backing read fails with MEDIUM ERROR. */
        void failReads(boolean fail) {
            failReads = fail;
        }

        synchronized void hold() {
            holding = true;
        }

        synchronized int heldCount() {
            return held.size();
        }

        void release() {
            List<Runnable> run;
            synchronized (this) {
                holding = false;
                run = new ArrayList<>(held);
                held.clear();
            }
            run.forEach(Runnable::run);
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            reads.incrementAndGet();
            bytesRead.addAndGet(length);
            lastReadBuffer = dst;
            lastReadCompletion = done;
            if (failReads) {
                done.ioComplete(IoStatus.MEDIUM_ERROR);
                return;
            }
            synchronized (this) {
                if (holding) {
                    held.add(() -> ram.read(offset, length, dst, done));
                    return;
                }
            }
            ram.read(offset, length, dst, done);
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            writes.incrementAndGet();
            bytesWritten.addAndGet(src.readableBytes());
            super.write(offset, src, fua, done);
        }

        @Override
        public void flush(IoCompletion done) {
            flushes.incrementAndGet();
            super.flush(done);
        }

        volatile boolean closed;

        /** Keeps the data (tests read it after the cache closed its backing device). */
        @Override
        public void close() {
            closed = true;
        }
    }
}
