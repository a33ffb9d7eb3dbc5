package io.numaiscsi.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.SharedRead;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.AffinityRouter;
import io.numaiscsi.cache.CacheParameters;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.cache.PartitionHash;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cache's hot paths on a fully cached 64 MiB RAM LUN (2 pretend nodes, 512 KiB blocks): a 4 KiB
 * hit (partition lookup, pin, copy, unpin), the router, a large hit copied into a pooled
 * direct network buffer against a plain copy of the same bytes between two direct buffers, and the
 * same hits served in place (a view over the pinned blocks, released at once: what zero-copy costs
 * the CPU instead of the copy).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CacheBenchmarks {
    private static final long DEVICE = 64L << 20;

    @Param({"131072", "524288"})
    public int copyBytes;

    private CachedBlockDevice cache;
    private AffinityRouter router;
    private ByteBuf network;
    private ByteBuf source;
    private final Completion done = new Completion();
    private long next;

    private final Shared shared = new Shared();

    /** Reusable shared-read completion: takes the view and releases it (the transport's part is not measured). */
    static final class Shared implements SharedRead {
        IoStatus status;
        int bytes;

        @Override
        public void sharedReadDone(IoStatus st, ByteBuf data) {
            status = st;
            bytes = data.readableBytes();
            data.release();
        }
    }

    /** Reusable completion; the RAM backing completes inline, so every read has finished on return. */
    static final class Completion implements IoCompletion {
        IoStatus status;

        @Override
        public void ioComplete(IoStatus st) {
            status = st;
        }
    }

    @Setup(Level.Trial)
    public void setup() {
        NumaTopology t = NumaTopology.detect().nodeCount() > 1
                ? NumaTopology.detect()
                : NumaTopology.detect().pretend(2);
        CacheParameters p = new CacheParameters(64L << 20, 512 << 10, 16, 4, 64 << 10, WritePolicy.WRITE_THROUGH);
        cache = CachedBlockDevice.create(new RamBlockDevice(DEVICE, 512), p, t, NodeMemory.open(t), null);
        router = new AffinityRouter(new PartitionHash(t.nodeCount(), 16, 4), 512 << 10, 64 << 10);
        network = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20);
        source = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20);
        source.writeZero(1 << 20);
        for (long off = 0; off < DEVICE; off += 1 << 20) { // warm: every block cached
            network.clear();
            cache.read(off, 1 << 20, network, done);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        network.release();
        source.release();
        cache.close();
    }

    /** Partition lookup on the hit path: one 4 KiB read from a cached block. */
    @Benchmark
    public IoStatus hit4k() {
        next = (next + 4096 * 97) % DEVICE;
        network.clear();
        cache.read(next, 4096, network, done);
        return done.status;
    }

    /** The router on a 256 KiB request at a moving offset. */
    @Benchmark
    public int route256k() {
        next = (next + 4096 * 97) % DEVICE;
        return router.route(next, 256 << 10, 0);
    }

    /** A cached read of copyBytes into the network buffer: lookup, pin, one copy, unpin. */
    @Benchmark
    public IoStatus cacheToNetwork() {
        next = (next + (1 << 20)) % (DEVICE - (1 << 20));
        network.clear();
        cache.read(next, copyBytes, network, done);
        return done.status;
    }

    /** The same cached read of copyBytes served in place: lookup, pin, a view over the blocks, release, unpin. */
    @Benchmark
    public int cacheInPlace() {
        next = (next + (1 << 20)) % (DEVICE - (1 << 20));
        cache.readShared(next, copyBytes, PooledByteBufAllocator.DEFAULT, shared);
        return shared.bytes;
    }

    /** A 4 KiB hit served in place: why small reads still copy over TCP (compare hit4k). */
    @Benchmark
    public int hit4kInPlace() {
        next = (next + 4096 * 97) % DEVICE;
        cache.readShared(next, 4096, PooledByteBufAllocator.DEFAULT, shared);
        return shared.bytes;
    }

    /**
     * A LUN 512 times larger than its cache (1 GiB of RAM, 2 MiB of cache in 64 KiB blocks): 4 KiB reads at scattered
     * offsets are mostly misses the admission reads through (lookup, admission, ghost table, backing read into the
     * caller's buffer), with a rare fill or hit.
     */
    @State(Scope.Thread)
    public static class LargeLun {
        static final long SIZE = 1L << 30;
        CachedBlockDevice cache;
        ByteBuf dst;
        long next;

        @Setup(Level.Trial)
        public void setup() {
            NumaTopology t = NumaTopology.detect().nodeCount() > 1
                    ? NumaTopology.detect()
                    : NumaTopology.detect().pretend(2);
            CacheParameters p = new CacheParameters(1L << 20, 64 << 10, 8, 4, 64 << 10, WritePolicy.WRITE_THROUGH);
            cache = CachedBlockDevice.create(new RamBlockDevice(SIZE, 512), p, t, NodeMemory.open(t), null);
            dst = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            dst.release();
            cache.close();
        }
    }

    /** A 4 KiB read of a LUN much larger than the cache: the miss path, mostly read through. */
    @Benchmark
    public IoStatus miss4k(LargeLun lun) {
        lun.next = (lun.next + 4096L * 1261) % LargeLun.SIZE;
        lun.dst.clear();
        lun.cache.read(lun.next, 4096, lun.dst, done);
        return done.status;
    }

    /** The floor: a plain copy of copyBytes between two direct buffers. */
    @Benchmark
    public int plainCopy() {
        network.clear();
        network.writeBytes(source, 0, copyBytes);
        return network.writerIndex();
    }
}
