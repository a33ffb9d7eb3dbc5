package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.scsi.LogicalUnit;
import java.util.List;

/**
 * A LUN as the registry holds it: where it is, what it was made from, its device and its SCSI unit, and what it uses
 * besides the device (its shared reservations' connection, its image ownership), closed before the device.
 */
public record RegisteredLun(String target, LunDefinition definition, BlockDevice device, LogicalUnit unit,
                            List<AutoCloseable> companions) {
    public RegisteredLun {
        companions = List.copyOf(companions);
    }

    /** Closes the companions, newest first, then flushes and closes the device. */
    void close() {
        String what = "target " + target + " LUN " + definition.id();
        for (int i = companions.size() - 1; i >= 0; i--) {
            DeviceShutdown.closeQuietly(companions.get(i), what);
        }
        DeviceShutdown.flushAndClose(device, what);
    }
}
