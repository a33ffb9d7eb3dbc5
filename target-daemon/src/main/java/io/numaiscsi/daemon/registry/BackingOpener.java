package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.scsi.BlockDevice;
import java.io.IOException;

/** Opens the block device a LUN definition names (its backing store, behind the cache when one is configured). */
@FunctionalInterface
public interface BackingOpener {
    BlockDevice open(LunDefinition lun) throws IOException;
}
