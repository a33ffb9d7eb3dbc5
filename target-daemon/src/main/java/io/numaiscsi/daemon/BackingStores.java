package io.numaiscsi.daemon;

import io.numaiscsi.cache.CacheParameters;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.CacheSettings;
import io.numaiscsi.config.FaultInjection;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.backstore.FaultInjectingBlockDevice;
import io.numaiscsi.scsi.backstore.FileBlockDevice;
import io.numaiscsi.scsi.backstore.ProcessUser;
import io.numaiscsi.scsi.backstore.RamBlockDevice;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the backing store a LUN definition names, behind the configured cache mode. */
final class BackingStores {
    private static final Logger LOG = LoggerFactory.getLogger(BackingStores.class);

    private BackingStores() {
    }

    static BlockDevice open(LunDefinition lun, Executor ioExecutor, CacheSettings cache, NumaResources numa)
            throws IOException {
        if (lun.backing() == BackingType.FILE && lun.path().getParent() != null) {
            Path parent = lun.path().getParent();
            DirectoryChain.check(parent, ProcessUser.uid());
            PrivateDirectories.createMissing(parent);
        }
        BlockDevice store = switch (lun.backing()) {
            case RAM -> new RamBlockDevice(lun.sizeBytes(), lun.blockSize());
            case FILE -> FileBlockDevice.open(lun.path(), lun.sizeBytes(), lun.blockSize(), ioExecutor,
                    cache.mode() != CacheSettings.Mode.PAGE_CACHE);
        };
        store = withFaults(store, lun);
        if (cache.mode() != CacheSettings.Mode.NUMA) {
            return store;
        }
        CacheParameters params = new CacheParameters(cache.sizePerNode(), cache.blockSize(), cache.partitionsPerNode(),
                cache.neighbours(), cache.routeThreshold(),
                cache.writePolicy(), cache.dirtyRatio(), cache.dirtyExpire());
        Executor[] workers = numa.topology().nodeCount() > 1 ? numa.nodeWorkers() : null;
        return CachedBlockDevice.create(store, params, numa.topology(), numa.memory(), workers);
    }

    /** The test/debug {@code inject-*} keys: the faults sit between the cache (if any) and the real store. */
    private static BlockDevice withFaults(BlockDevice store, LunDefinition lun) {
        FaultInjection f = lun.faults();
        if (!f.active()) {
            return store;
        }
        LOG.warn("LUN {}: TEST/DEBUG fault injection on (latency {}, medium error every {}, no space after {} bytes)",
                lun.id(), f.latency(), f.mediumErrorEvery(), f.noSpaceAfterBytes());
        return new FaultInjectingBlockDevice(store, f.latency(), f.mediumErrorEvery(), f.noSpaceAfterBytes());
    }
}
