package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The background write-back flusher: dirty bytes stay under the hard limit, and expired blocks reach the disk unflushed. */
class WriteBackFlusherTest {
    private static final int BLOCK = 16 * 1024;
    private static final long DEVICE = 8L << 20;

    private final WriteBackFlusher flusher = new WriteBackFlusher("test-flusher");
    private final ScheduledExecutorService slowDisk = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        flusher.close();
        slowDisk.shutdownNow();
    }

    private CachedBlockDevice cache(BlockDevice backing, double ratio, Duration expire) {
        NumaTopology t = NumaTopology.detect().nodeCount() >= 2
                ? NumaTopology.detect()
                : NumaTopology.detect().pretend(2);
        // 2 nodes x 512 KiB = 1 MiB, 64 blocks of 16 KiB
        CacheParameters p =
                new CacheParameters(512 * 1024, BLOCK, 2, 2, 64 * 1024, WritePolicy.WRITE_BACK, ratio, expire);
        return CachedBlockDevice.create(
                backing,
                p,
                t,
                NodeMemory.open(t),
                null,
                AffinityRouter.allNodes(t.nodeCount()),
                DataTouches.singleNode(),
                flusher);
    }

    /**
     * Writers stream single- and multi-block writes (some partial) faster than the backing device takes them, for about
     * two seconds, with no flush. The bound: a write installs a block only when the dirty bytes plus one block are at
     * most the hard limit, so with W writers each between its check and its install the dirty bytes never exceed
     * hardLimit + (W - 1) x block. (The soft limit, ratio x capacity, starts a batch; while it is in flight the writers
     * may add hardLimit - softLimit before they wait for it.)
     */
    @Test
    void dirtyBytesStayUnderTheBoundWhileWritersOutrunTheDisk() throws Exception {
        SlowDevice backing = new SlowDevice(DEVICE, slowDisk, 2);
        CachedBlockDevice c = cache(backing, 0.2, Duration.ofSeconds(60));
        long capacity = 1L << 20;
        assertEquals((long) (capacity * 0.2), c.dirtySoftLimit());
        assertEquals(2 * c.dirtySoftLimit(), c.dirtyHardLimit());
        int writers = 3;
        long bound = c.dirtyHardLimit() + (long) (writers - 1) * BLOCK;

        int blocks = (int) (DEVICE / BLOCK);
        AtomicReferenceArray<byte[]> model = new AtomicReferenceArray<>(blocks); // last acknowledged content per block
        AtomicLong maxSeen = new AtomicLong();
        AtomicInteger samples = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        Thread sampler = new Thread(() -> {
            while (System.nanoTime() < end) {
                maxSeen.accumulateAndGet(c.dirtyBytes(), Math::max);
                samples.incrementAndGet();
                LockSupport.parkNanos(200_000);
            }
        });
        List<Thread> ws = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int stripe = w;
            ws.add(new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    // each writer owns the blocks b with b % writers == stripe, so the model's order is the write order
                    int b = r.nextInt(blocks / writers) * writers + stripe;
                    byte[] content = model.get(b) == null
                            ? new byte[BLOCK]
                            : model.get(b).clone();
                    int off = r.nextBoolean() ? 0 : r.nextInt(BLOCK - 512);
                    int len = off == 0 ? BLOCK : Math.min(BLOCK - off, 512 + r.nextInt(4096));
                    byte[] data = Support.pattern(len, writes.incrementAndGet());
                    System.arraycopy(data, 0, content, off, len);
                    try {
                        assertEquals(IoStatus.OK, Support.write(c, (long) b * BLOCK + off, data, false));
                    } catch (AssertionError e) {
                        System.err.println(
                                "STUCK " + e.getMessage() + " dirty " + c.dirtyBytes() + "\n" + c.debugState());
                        Thread.getAllStackTraces()
                                .forEach((t, st) -> System.err.println("THREAD " + t.getName() + " "
                                        + t.getState() + "\n  "
                                        + Arrays.stream(st)
                                                .limit(40)
                                                .map(Object::toString)
                                                .collect(Collectors.joining("\n  "))));
                        throw e;
                    }
                    model.set(b, content);
                }
            }));
        }
        sampler.start();
        ws.forEach(Thread::start);
        for (Thread t : ws) {
            t.join(60_000);
        }
        sampler.join(60_000);

        System.out.printf(
                "flusher bound test: %d writes, %d samples, max dirty %d bytes, soft %d, hard %d, bound %d,"
                        + " batches %d, written back %d bytes, backing flushes %d%n",
                writes.get(),
                samples.get(),
                maxSeen.get(),
                c.dirtySoftLimit(),
                c.dirtyHardLimit(),
                bound,
                c.writebackBatches(),
                c.writebackBytes(),
                backing.flushes.get());
        assertTrue(maxSeen.get() <= bound, "dirty bytes " + maxSeen.get() + " exceeded the bound " + bound);
        assertTrue(maxSeen.get() > c.dirtySoftLimit(), "the writers never got the cache past its ratio: not a test");
        assertTrue(c.writebackBatches() > 0 && c.writebackBytes() > 0);
        assertEquals(0, backing.flushes.get(), "nobody flushed: the batches came from the flusher and the hard limit");

        // what was acknowledged is what the disk holds after a flush
        assertEquals(IoStatus.OK, Support.flush(c));
        assertEquals(0, c.dirtyBytes());
        for (int b = 0; b < blocks; b++) {
            if (model.get(b) != null) {
                assertArrayEquals(model.get(b), Support.read(backing.ram, (long) b * BLOCK, BLOCK), "block " + b);
            }
        }
        c.close();
    }

    /** A few blocks, far below the ratio: only their age gets them written back, with no flush from anyone. */
    @Test
    void expiredBlocksReachTheDiskWithoutAFlush() {
        SlowDevice backing = new SlowDevice(DEVICE, slowDisk, 0);
        CachedBlockDevice c = cache(backing, 0.5, Duration.ofMillis(300));
        byte[][] data = new byte[4][];
        for (int i = 0; i < data.length; i++) {
            data[i] = Support.pattern(BLOCK, 100 + i);
            assertEquals(IoStatus.OK, Support.write(c, (long) (10 + 7 * i) * BLOCK, data[i], false));
        }
        assertTrue(4L * BLOCK < c.dirtySoftLimit());
        awaitClean(c);
        for (int i = 0; i < data.length; i++) {
            assertArrayEquals(data[i], Support.read(backing.ram, (long) (10 + 7 * i) * BLOCK, BLOCK));
        }
        assertEquals(0, backing.flushes.get());
        assertTrue(c.writebackBatches() >= 1);
        assertEquals(4L * BLOCK, c.writebackBytes());
        c.close();
    }

    /** A block rewritten every 20 ms keeps its first dirty time, so it is written back while the rewrites go on. */
    @Test
    void aBlockRewrittenAllTheTimeStillExpires() {
        SlowDevice backing = new SlowDevice(DEVICE, slowDisk, 0);
        CachedBlockDevice c = cache(backing, 0.5, Duration.ofMillis(200));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int i = 0;
        while (backing.writes.get() == 0 && System.nanoTime() < deadline) {
            assertEquals(IoStatus.OK, Support.write(c, 3L * BLOCK, Support.pattern(BLOCK, i++), false));
            LockSupport.parkNanos(20_000_000);
        }
        assertTrue(backing.writes.get() > 0, "the block was never written back while being rewritten");
        assertEquals(0, backing.flushes.get());
        c.close();
    }

    private static void awaitClean(CachedBlockDevice c) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.dirtyBytes() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
        assertEquals(0, c.dirtyBytes(), "dirty blocks were not written back in the background");
    }

    /** A RAM disk whose writes complete {@code delayMs} later, one at a time, on another thread. */
    static final class SlowDevice extends RamBackedDevice {
        final AtomicInteger writes = new AtomicInteger();
        final AtomicInteger flushes = new AtomicInteger();
        private final ScheduledExecutorService disk;
        private final long delayMs;

        SlowDevice(long size, ScheduledExecutorService disk, long delayMs) {
            super(new RamBlockDevice(size, 512));
            this.disk = disk;
            this.delayMs = delayMs;
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            writes.incrementAndGet();
            disk.schedule(() -> ram.write(offset, src, fua, done), delayMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public void flush(IoCompletion done) {
            flushes.incrementAndGet();
            disk.execute(() -> ram.flush(done));
        }
    }
}
