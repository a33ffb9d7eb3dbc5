package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.numa.DataTouches;
import java.io.IOException;

/**
 * Opens the block device a LUN definition names (its backing store, behind the cache when one is configured), placed
 * on its target's home node, recording the bytes it touches in {@code touches}.
 */
@FunctionalInterface
public interface BackingOpener {
    BlockDevice open(String target, LunDefinition lun, DataTouches touches) throws IOException;
}
