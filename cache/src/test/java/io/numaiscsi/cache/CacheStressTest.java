package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.Support.Done;
import io.numaiscsi.numa.CpuPinning;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 8 threads of random overlapping reads and writes (512 B..256 KiB) on a device 8 times the cache,
 * through forwarding node workers and an asynchronous backing device. Every sector written carries
 * its write's stamp; a read must see, per sector, a stamp no older than the last write acknowledged
 * before the read started and no newer than the last write started before it ended, and never a
 * torn sector. Writes that overlap are serialized by the test (their order is otherwise undefined);
 * reads are not.
 */
class CacheStressTest {
    private static final int SECTOR = 512;
    private static final int DEVICE = 4 << 20;
    private static final int SECTORS = DEVICE / SECTOR;
    private static final int STRIPE = 4096;
    private static final int THREADS = 8;
    private static final int OPS = 250;

    private final AtomicLongArray acked = new AtomicLongArray(SECTORS);
    private final AtomicLongArray started = new AtomicLongArray(SECTORS);
    private final ReentrantLock[] stripes = new ReentrantLock[DEVICE / STRIPE];
    private final AtomicLong stamps = new AtomicLong();

    private static long word(long stamp, long sector, int j) {
        return stamp == 0 ? 0 : stamp * 1_000_003L + sector * 131L + j;
    }

    @ParameterizedTest
    @EnumSource(WritePolicy.class)
    void randomOverlappingReadsAndWrites(WritePolicy policy) throws Exception {
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
        NumaTopology t = NumaTopology.detect().pretend(2);
        ExecutorService io = Executors.newFixedThreadPool(2);
        ExecutorService[] nodes = {
            Executors.newFixedThreadPool(2, CpuPinning.threadFactory(t.node(0), "n0", true)),
            Executors.newFixedThreadPool(2, CpuPinning.threadFactory(t.node(1), "n1", true))
        };
        ExecutorService clients = Executors.newFixedThreadPool(THREADS);
        AsyncDevice backing = new AsyncDevice(new RamBlockDevice(DEVICE, SECTOR), io);
        CacheParameters p = new CacheParameters(256 * 1024, 16 * 1024, 2, 2, 64 * 1024, policy);
        CachedBlockDevice cache = CachedBlockDevice.create(backing, p, t, NodeMemory.open(t), nodes);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int c = 0; c < THREADS; c++) {
                int seed = c;
                results.add(clients.submit(() -> {
                    try {
                        return client(cache, new Random(seed * 7919L + policy.ordinal()));
                    } catch (AssertionError e) {
                        System.err.println("STUCK " + e.getMessage() + "\n" + cache.debugState());
                        throw e;
                    }
                }));
            }
            int reads = 0;
            for (Future<Integer> f : results) {
                reads += f.get();
            }
            assertTrue(reads > THREADS * OPS / 4, "reads were done: " + reads);
            CacheCounters.Snapshot s = cache.counters().snapshot();
            assertTrue(s.total(s.evictions()) > 0, "the cache was small enough to evict");
            assertTrue(s.total(s.hits()) > 0);
            assertTrue(s.total(s.forwards()) > 0, "large requests were forwarded");
            // after a flush the backing device alone holds every acknowledged write
            assertEquals(IoStatus.OK, Support.flush(cache));
            check(Support.read(backing.ram, 0, DEVICE), 0, acked, acked);
            assertEquals(0, cache.pinnedSlots(), "no pin leaked");
        } finally {
            cache.close();
            clients.shutdownNow();
            io.shutdownNow();
            for (ExecutorService n : nodes) {
                n.shutdownNow();
            }
        }
    }

    private int client(BlockDevice cache, Random rnd) {
        int reads = 0;
        ByteBuf buf = Unpooled.directBuffer(256 * 1024);
        try {
            for (int op = 0; op < OPS; op++) {
                int sectors = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(512) : 1 + rnd.nextInt(64);
                int first = rnd.nextInt(SECTORS - sectors + 1);
                if (rnd.nextInt(100) < 55) {
                    long[] before = new long[sectors];
                    for (int i = 0; i < sectors; i++) {
                        before[i] = acked.get(first + i);
                    }
                    buf.clear();
                    Done d = new Done();
                    cache.read((long) first * SECTOR, sectors * SECTOR, buf, d);
                    assertEquals(IoStatus.OK, d.await());
                    assertEquals(sectors * SECTOR, buf.writerIndex());
                    long[] after = new long[sectors];
                    for (int i = 0; i < sectors; i++) {
                        after[i] = started.get(first + i);
                    }
                    byte[] got = new byte[sectors * SECTOR];
                    buf.getBytes(0, got);
                    check(got, first, new AtomicLongArray(before), new AtomicLongArray(after));
                    reads++;
                } else {
                    write(cache, rnd, first, sectors, buf);
                }
            }
        } finally {
            buf.release();
        }
        return reads;
    }

    private void write(BlockDevice cache, Random rnd, int first, int sectors, ByteBuf buf) {
        int fromStripe = first * SECTOR / STRIPE;
        int toStripe = ((first + sectors) * SECTOR - 1) / STRIPE;
        for (int s = fromStripe; s <= toStripe; s++) {
            stripes[s].lock();
        }
        try {
            long stamp = stamps.incrementAndGet();
            buf.clear();
            for (int i = 0; i < sectors; i++) {
                started.set(first + i, stamp);
                for (int j = 0; j < SECTOR / 8; j++) {
                    buf.writeLong(word(stamp, first + i, j));
                }
            }
            Done d = new Done();
            cache.write((long) first * SECTOR, buf, rnd.nextInt(20) == 0, d);
            assertEquals(IoStatus.OK, d.await());
            for (int i = 0; i < sectors; i++) {
                acked.set(first + i, stamp);
            }
        } finally {
            for (int s = fromStripe; s <= toStripe; s++) {
                stripes[s].unlock();
            }
        }
    }

    /** Sector i of {@code data} is device sector first+i; its stamp must lie in [low[i], high[i]]. */
    private static void check(byte[] data, int first, AtomicLongArray low, AtomicLongArray high) {
        ByteBuffer bb = ByteBuffer.wrap(data);
        for (int i = 0; i < data.length / SECTOR; i++) {
            long sector = first + i;
            // a read racing a write may see a sector half old, half new (no device promises more), so each
            // 8-byte word is checked on its own: it must come from an admissible write
            for (int j = 0; j < SECTOR / 8; j++) {
                long w = bb.getLong(i * SECTOR + j * 8);
                long stamp = w == 0 ? 0 : (w - sector * 131L - j) / 1_000_003L;
                assertEquals(word(stamp, sector, j), w, "garbage in sector " + sector + " word " + j);
                assertTrue(
                        stamp >= low.get(i) && stamp <= high.get(i),
                        "sector " + sector + ": stamp " + stamp + " outside [" + low.get(i) + ", " + high.get(i) + "]");
            }
        }
    }

    /** A RAM disk completing on another thread, as a file store does. */
    static final class AsyncDevice extends RamBackedDevice {
        private final ExecutorService io;

        AsyncDevice(RamBlockDevice ram, ExecutorService io) {
            super(ram);
            this.io = io;
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            io.execute(() -> ram.read(offset, length, dst, done));
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            io.execute(() -> ram.write(offset, src, fua, done));
        }

        @Override
        public void flush(IoCompletion done) {
            io.execute(() -> ram.flush(done));
        }

        @Override
        public void unmap(long offset, long length, IoCompletion done) {
            io.execute(() -> ram.unmap(offset, length, done));
        }
    }
}
