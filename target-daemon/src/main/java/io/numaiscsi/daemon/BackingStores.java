package io.numaiscsi.daemon;

import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.backstore.FileBlockDevice;
import io.numaiscsi.scsi.backstore.RamBlockDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.Executor;

/** Opens the backing store a LUN definition names. */
final class BackingStores {
    private BackingStores() {
    }

    static BlockDevice open(LunDefinition lun, Executor ioExecutor) throws IOException {
        return switch (lun.backing()) {
            case RAM -> new RamBlockDevice(lun.sizeBytes(), lun.blockSize());
            case FILE -> {
                if (lun.path().getParent() != null) {
                    Files.createDirectories(lun.path().getParent());
                }
                yield FileBlockDevice.open(lun.path(), lun.sizeBytes(), lun.blockSize(), ioExecutor);
            }
        };
    }
}
