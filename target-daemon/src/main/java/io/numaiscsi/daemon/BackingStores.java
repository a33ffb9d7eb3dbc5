package io.numaiscsi.daemon;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.backstore.BackingAccess;
import io.numaiscsi.blockdev.backstore.ChunkMemory;
import io.numaiscsi.blockdev.backstore.DeviceBacking;
import io.numaiscsi.blockdev.backstore.FaultInjectingBlockDevice;
import io.numaiscsi.blockdev.backstore.FileBlockDevice;
import io.numaiscsi.blockdev.backstore.NullBlockDevice;
import io.numaiscsi.blockdev.backstore.ProcessUser;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.CacheParameters;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.cache.NodeBlockPool;
import io.numaiscsi.cache.WriteBackFlusher;
import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.CacheSettings;
import io.numaiscsi.config.FaultInjection;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.RbdSource;
import io.numaiscsi.daemon.placement.CachePools;
import io.numaiscsi.daemon.placement.TargetPlacement;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.rbd.CephClient;
import io.numaiscsi.rbd.RbdBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the backing store a LUN definition names, on its target's home node, behind the configured cache mode. */
final class BackingStores {
    private static final Logger LOG = LoggerFactory.getLogger(BackingStores.class);

    private final CacheSettings cache;
    private final NumaResources numa;
    private final TargetPlacement placement;
    private final CachePools pools;
    private final BackingIoChoice backingIo;

    BackingStores(
            CacheSettings cache,
            NumaResources numa,
            TargetPlacement placement,
            CachePools pools,
            BackingIoChoice backingIo) {
        this.cache = cache;
        this.numa = numa;
        this.placement = placement;
        this.pools = pools;
        this.backingIo = backingIo;
    }

    BlockDevice open(String target, LunDefinition lun, DataTouches touches, boolean sharedByGateways)
            throws IOException {
        int home = placement.applyAsInt(target);
        if (lun.backing() == BackingType.FILE && lun.path().getParent() != null) {
            Path parent = lun.path().getParent();
            DirectoryChain.check(parent, ProcessUser.uid());
            PrivateDirectories.createMissing(parent);
        }
        Executor io = numa.ioExecutor(home);
        boolean directIo = !cache.storesBuffered();
        BackingAccess access = lun.readOnly() ? BackingAccess.READ_ONLY : BackingAccess.READ_WRITE;
        BlockDevice store = switch (lun.backing()) {
            case RAM ->
                new RamBlockDevice(lun.sizeBytes(), lun.blockSize(), new NodeChunks(numa.memory(), home), touches);
            case NULL -> new NullBlockDevice(lun.sizeBytes(), lun.blockSize(), touches);
            case FILE ->
                withIo(
                        FileBlockDevice.open(lun.path(), lun.sizeBytes(), lun.blockSize(), io, directIo, access),
                        touches,
                        home,
                        target,
                        lun);
            case BLOCK ->
                withIo(
                        DeviceBacking.open(lun.path(), lun.sizeBytes(), lun.blockSize(), io, directIo, access),
                        touches,
                        home,
                        target,
                        lun);
            case RBD -> rbd(lun, sharedByGateways);
        };
        if (sharedByGateways && lun.backing() == BackingType.RBD) {
            // the gateways fence each other through the image itself: nothing may sit between it and the target
            if (lun.faults().active() || lun.rbd().numaCache()) {
                store.close();
                throw new IOException("target " + target + " LUN " + lun.id() + ": an RBD image the target's gateways"
                        + " share (alua) cannot have "
                        + (lun.rbd().numaCache()
                                ? "numa-cache: true (the cache would"
                                        + " serve blocks another gateway has since written)"
                                : "inject-* fault keys")
                        + "; remove that key");
            }
            return store;
        }
        store = withFaults(store, lun);
        if (lun.backing() == BackingType.NULL) {
            LOG.warn(
                    "target {} LUN {}: backing null: reads return zeroes and writes are DROPPED (for measuring the"
                            + " protocol path; no cache)",
                    target,
                    lun.id());
            return store;
        }
        if (lun.backing() == BackingType.RBD
                && cache.mode() == CacheSettings.Mode.NUMA
                && !lun.rbd().numaCache()) {
            LOG.info(
                    "target {} LUN {}: node {}, no NUMA cache on RBD image {}/{} (another gateway may write it; "
                            + "numa-cache: true turns it on for an image only this daemon writes)",
                    target,
                    lun.id(),
                    home,
                    lun.rbd().pool(),
                    lun.rbd().image());
            return store;
        }
        if (cache.mode() != CacheSettings.Mode.NUMA) {
            LOG.info("target {} LUN {}: node {}, no cache (cache.mode {})", target, lun.id(), home, cache.mode());
            return store;
        }
        // a store behind injected faults is wrapped, and keeps its cache whatever it is
        String standAside = CacheStandAside.reason(
                lun.backing(), store, numa.topology().nodeCount(), lun.faults().active());
        if (standAside != null) {
            LOG.info(
                    "target {} LUN {}: node {}, no NUMA cache: {} (a cache would be a second copy of memory with no"
                            + " nearer node to serve from)",
                    target,
                    lun.id(),
                    home,
                    standAside);
            return store;
        }
        NodeBlockPool pool = pools.pool(home);
        if (pool == null) {
            LOG.warn(
                    "target {} LUN {}: node {}, served without the cache: the node has no cache memory",
                    target,
                    lun.id(),
                    home);
            return store;
        }
        CacheParameters params = new CacheParameters(
                pool.bytes(),
                cache.blockSize(),
                cache.partitionsPerNode(),
                cache.neighbours(),
                cache.routeThreshold(),
                cache.writePolicy(),
                cache.dirtyRatio(),
                cache.dirtyExpire());
        Executor[] workers = numa.topology().nodeCount() > 1 ? numa.nodeWorkers() : null;
        LOG.info(
                "target {} LUN {}: home node {}, cache from the node's pool of {} bytes",
                target,
                lun.id(),
                home,
                pool.bytes());
        return CachedBlockDevice.createInPools(
                store,
                params,
                numa.topology(),
                new NodeBlockPool[] {pool},
                workers,
                new int[] {home},
                touches,
                WriteBackFlusher.shared());
    }

    /** A file or device store given its byte accounting and, where the daemon uses it, its io_uring ring. */
    private FileBlockDevice withIo(FileBlockDevice d, DataTouches touches, int home, String target, LunDefinition lun)
            throws IOException {
        d.touches(touches);
        backingIo.apply(d, numa.ringReapers(home), "target " + target + " LUN " + lun.id());
        return d;
    }

    /** An RBD image through librbd; its cluster connection is the store's own. */
    private static BlockDevice rbd(LunDefinition lun, boolean sharedByGateways) throws IOException {
        RbdSource r = lun.rbd();
        if (lun.readOnly()) {
            LOG.info(
                    "LUN {}: RBD image {}/{} is opened read-write; the LUN refuses writes (read-only)",
                    lun.id(),
                    r.pool(),
                    r.image());
        }
        CephClient client = new CephClient(r.cephConf(), r.user(), r.keyring(), r.timeout());
        return RbdBlockDevice.open(client, r.pool(), r.image(), lun.blockSize(), sharedByGateways);
    }

    /** The test/debug {@code inject-*} keys: the faults sit between the cache (if any) and the real store. */
    private static BlockDevice withFaults(BlockDevice store, LunDefinition lun) {
        FaultInjection f = lun.faults();
        if (!f.active()) {
            return store;
        }
        LOG.warn(
                "LUN {}: TEST/DEBUG fault injection on (latency {}, medium error every {}, no space after {} bytes)",
                lun.id(),
                f.latency(),
                f.mediumErrorEvery(),
                f.noSpaceAfterBytes());
        return new FaultInjectingBlockDevice(store, f.latency(), f.mediumErrorEvery(), f.noSpaceAfterBytes());
    }

    /** A RAM disk's chunks in its home node's memory; kept until the disk closes. */
    private static final class NodeChunks implements ChunkMemory {
        private final NodeMemory memory;
        private final int node;
        private final IdentityHashMap<ByteBuf, ByteBuffer> allocated = new IdentityHashMap<>();

        NodeChunks(NodeMemory memory, int node) {
            this.memory = memory;
            this.node = node;
        }

        @Override
        public synchronized ByteBuf allocate(int bytes) {
            ByteBuffer b = memory.allocate(node, bytes);
            ByteBuf chunk = Unpooled.wrappedBuffer(b).clear();
            allocated.put(chunk, b);
            return chunk;
        }

        @Override
        public boolean reclaimable() {
            return false;
        }

        @Override
        public synchronized void free(ByteBuf chunk) {
            ByteBuffer b = allocated.remove(chunk);
            if (b != null) {
                memory.free(b);
            }
        }
    }
}
