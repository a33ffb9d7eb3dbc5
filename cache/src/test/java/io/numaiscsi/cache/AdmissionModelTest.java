package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.CacheStressTest.AsyncDevice;
import io.numaiscsi.cache.Support.Done;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Concurrent readers and writers compared byte for byte with a model. The first half of the device is read-only
 * (every read of it must return the initial pattern); in the second half each thread owns every THREADS-th 4 KiB
 * granule, writes only those and reads them back, so each thread's model is exact while the threads still share
 * cache blocks (sub-block fills, hits and invalidations of one slot from several threads). Reads are random 4 KiB,
 * short sequential runs, multi-block ranges and shared (in-place) reads; the backing device completes on other
 * threads.
 */
class AdmissionModelTest {
    private static final int K = 1024;
    private static final int G = 4 * K;
    private static final int BLOCK = 64 * K;
    private static final int DEVICE = 4 << 20;
    private static final int HALF = DEVICE / 2;
    private static final int THREADS = 4;
    private static final int OPS = 1500;
    private static final ByteBufAllocator ALLOC = new UnpooledByteBufAllocator(true);

    @ParameterizedTest
    @EnumSource(WritePolicy.class)
    void readsMatchTheModel(WritePolicy policy) throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        ExecutorService clients = Executors.newFixedThreadPool(THREADS);
        AsyncDevice backing = new AsyncDevice(new RamBlockDevice(DEVICE, 512), io);
        byte[] initial = Support.pattern(DEVICE, 5);
        assertEquals(IoStatus.OK, Support.write(backing.ram, 0, initial, false));
        NumaTopology t = NumaTopology.detect().pretend(2);
        CacheParameters p = new CacheParameters(256 * K, BLOCK, 2, 1, 64 * K, policy); // 8 slots, 64 blocks
        CachedBlockDevice cache = CachedBlockDevice.create(backing, p, t, NodeMemory.open(t), null);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int c = 0; c < THREADS; c++) {
                int me = c;
                results.add(clients.submit(() -> {
                    new Client(cache, initial, me, new Random(me * 31L + policy.ordinal())).run();
                    return null;
                }));
            }
            for (Future<?> f : results) {
                f.get(120, TimeUnit.SECONDS);
            }
            CacheCounters.Snapshot s = cache.counters().snapshot();
            assertTrue(s.total(s.readThroughs()) > 0, "some misses were read through");
            assertTrue(s.total(s.hits()) > 0, "some reads hit");
            assertTrue(s.total(s.evictions()) > 0, "the cache was small enough to evict");
            assertEquals(0, cache.pinnedSlots(), "no pin leaked");
            assertEquals(IoStatus.OK, Support.flush(cache));
            byte[] after = Support.read(backing.ram, 0, HALF);
            assertArrayEquals(Arrays.copyOf(initial, HALF), after, "the read-only half was never written");
        } finally {
            cache.close();
            clients.shutdownNow();
            io.shutdownNow();
        }
    }

    /** One thread: its own model of the granules it owns, the shared initial pattern for the read-only half. */
    private static final class Client {
        private final CachedBlockDevice cache;
        private final byte[] initial;
        private final byte[] model;
        private final int me;
        private final Random rnd;
        private final ByteBuf buf = Unpooled.directBuffer(4 * BLOCK);

        Client(CachedBlockDevice cache, byte[] initial, int me, Random rnd) {
            this.cache = cache;
            this.initial = initial;
            this.model = initial.clone();
            this.me = me;
            this.rnd = rnd;
        }

        void run() {
            try {
                for (int op = 0; op < OPS; op++) {
                    int kind = rnd.nextInt(10);
                    if (kind < 3) {
                        write(ownGranule());
                    } else if (kind < 6) {
                        long g = ownGranule();
                        int skip = rnd.nextInt(8) * 512;
                        read(g + skip, G - skip, model);
                    } else if (kind < 8) {
                        readOnly();
                    } else if (kind < 9) {
                        long at = (long) rnd.nextInt(HALF / G - 16) * G;
                        for (int i = 0; i < 16; i++) {
                            read(at + (long) i * G, G, initial); // a sequential stream
                        }
                    } else {
                        int length = G + rnd.nextInt(BLOCK / 512) * 512;
                        shared((long) rnd.nextInt((HALF - length) / 512 + 1) * 512, length);
                    }
                }
                // the final state of every owned granule, read through the cache
                for (long g = HALF + (long) me * G; g < DEVICE; g += (long) THREADS * G) {
                    read(g, G, model);
                }
            } finally {
                buf.release();
            }
        }

        private long ownGranule() {
            int n = HALF / G / THREADS;
            return HALF + ((long) rnd.nextInt(n) * THREADS + me) * G;
        }

        private void readOnly() {
            int length = rnd.nextBoolean() ? G : 512 * (1 + rnd.nextInt(3 * BLOCK / 512));
            long at = (long) rnd.nextInt((HALF - length) / 512 + 1) * 512;
            read(at, length, initial);
        }

        private void write(long at) {
            byte[] b = new byte[G];
            rnd.nextBytes(b);
            Done d = new Done();
            cache.write(at, Unpooled.wrappedBuffer(b), false, d);
            assertEquals(IoStatus.OK, d.await());
            System.arraycopy(b, 0, model, (int) at, G);
        }

        private void read(long at, int length, byte[] expected) {
            buf.clear();
            Done d = new Done();
            cache.read(at, length, buf, d);
            assertEquals(IoStatus.OK, d.await());
            assertEquals(length, buf.readableBytes());
            byte[] got = new byte[length];
            buf.getBytes(0, got);
            assertArrayEquals(
                    Arrays.copyOfRange(expected, (int) at, (int) at + length), got, "read of " + length + " at " + at);
        }

        private void shared(long at, int length) {
            CountDownLatch latch = new CountDownLatch(1);
            ByteBuf[] out = new ByteBuf[1];
            IoStatus[] st = new IoStatus[1];
            cache.readShared(at, length, ALLOC, (status, data) -> {
                st[0] = status;
                out[0] = data;
                latch.countDown();
            });
            try {
                assertTrue(latch.await(10, TimeUnit.SECONDS), "shared read did not complete");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertEquals(IoStatus.OK, st[0]);
            byte[] got = new byte[length];
            out[0].getBytes(out[0].readerIndex(), got);
            out[0].release();
            assertArrayEquals(
                    Arrays.copyOfRange(initial, (int) at, (int) at + length),
                    got,
                    "shared read of " + length + " at " + at);
        }
    }
}
