package io.numaiscsi.daemon.registry;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.numa.DataTouches;
import java.io.IOException;

/**
 * Opens the block device a LUN definition names (its backing store, behind the cache when one is configured), placed
 * on its target's home node, recording the bytes it touches in {@code touches}. {@code sharedByGateways}: the target
 * spans gateways (ALUA), so a store they all reach (an RBD image) is opened for one writer at a time.
 */
@FunctionalInterface
public interface BackingOpener {
    BlockDevice open(String target, LunDefinition lun, DataTouches touches, boolean sharedByGateways)
            throws IOException;
}
