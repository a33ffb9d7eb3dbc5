package io.numaiscsi.daemon;

import io.numaiscsi.cache.CacheParameters;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.cache.PageCacheFileBlockDevice;
import io.numaiscsi.cache.WritePolicy;
import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.CacheSettings;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.backstore.FileBlockDevice;
import io.numaiscsi.scsi.backstore.RamBlockDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.Executor;

/** Opens the backing store a LUN definition names, behind the configured cache mode. */
final class BackingStores {
    private BackingStores() {
    }

    static BlockDevice open(LunDefinition lun, Executor ioExecutor, CacheSettings cache, NumaResources numa)
            throws IOException {
        if (lun.backing() == BackingType.FILE && lun.path().getParent() != null) {
            Files.createDirectories(lun.path().getParent());
        }
        BlockDevice store = switch (lun.backing()) {
            case RAM -> new RamBlockDevice(lun.sizeBytes(), lun.blockSize());
            case FILE -> cache.mode() == CacheSettings.Mode.PAGE_CACHE
                    ? PageCacheFileBlockDevice.open(lun.path(), lun.sizeBytes(), lun.blockSize(), ioExecutor)
                    : FileBlockDevice.open(lun.path(), lun.sizeBytes(), lun.blockSize(), ioExecutor);
        };
        if (cache.mode() != CacheSettings.Mode.NUMA) {
            return store;
        }
        CacheParameters params = new CacheParameters(cache.sizePerNode(), cache.blockSize(), cache.partitionsPerNode(),
                cache.neighbours(), cache.routeThreshold(),
                cache.writePolicy() == CacheSettings.WritePolicy.WRITE_BACK ? WritePolicy.WRITE_BACK : WritePolicy.WRITE_THROUGH);
        Executor[] workers = numa.topology().nodeCount() > 1 ? numa.nodeWorkers() : null;
        return CachedBlockDevice.create(store, params, numa.topology(), numa.memory(), workers);
    }
}
