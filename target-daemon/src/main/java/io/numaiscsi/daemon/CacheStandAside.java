package io.numaiscsi.daemon;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.backstore.FileBlockDevice;
import io.numaiscsi.config.BackingType;

/**
 * When the NUMA cache stands aside for a LUN although {@code cache.mode} is {@code numa}: its store is memory (a RAM
 * LUN, or a file on tmpfs) and the machine has one NUMA node. The cache would then be a second copy of memory with no
 * nearer node to serve it from; every hit costs what the store's own read costs, and every miss more
 * (docs/performance.md, "The NUMA cache on and off"). A store slowed by the test-only {@code inject-*} keys keeps its
 * cache: it stands for a slow device.
 */
final class CacheStandAside {
    private CacheStandAside() {}

    /** Why {@code store} is served without the cache, or null when the cache goes in front of it. */
    static String reason(BackingType backing, BlockDevice store, int nodes, boolean faultsInjected) {
        if (nodes > 1 || faultsInjected) {
            return null;
        }
        if (backing == BackingType.RAM) {
            return "its store is RAM on a machine with one NUMA node";
        }
        if (backing == BackingType.FILE && store instanceof FileBlockDevice file && file.onTmpfs()) {
            return "its file is on tmpfs (memory) on a machine with one NUMA node";
        }
        return null;
    }
}
