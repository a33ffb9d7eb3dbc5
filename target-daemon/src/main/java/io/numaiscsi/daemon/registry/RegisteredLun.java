package io.numaiscsi.daemon.registry;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.daemon.cluster.RbdUnitOwnership;
import io.numaiscsi.rbd.ImageOwnership;
import io.numaiscsi.scsi.LogicalUnit;
import java.util.List;

/**
 * A LUN as the registry holds it: where it is, what it was made from, its device and its SCSI unit, and what it uses
 * besides the device (its shared reservations' connection, its image ownership), closed before the device.
 */
public record RegisteredLun(
        String target, LunDefinition definition, BlockDevice device, LogicalUnit unit, List<AutoCloseable> companions) {
    public RegisteredLun {
        companions = List.copyOf(companions);
    }

    /** The ALUA side of an RBD LUN its gateways share, or null for any other LUN. */
    public RbdUnitOwnership unitOwnership() {
        for (AutoCloseable c : companions) {
            if (c instanceof RbdUnitOwnership o) {
                return o;
            }
        }
        return null;
    }

    /** Who writes the image of an RBD LUN its gateways share, or null for any other LUN. */
    public ImageOwnership imageOwnership() {
        RbdUnitOwnership o = unitOwnership();
        return o == null ? null : o.image();
    }

    /**
     * This gateway's ALUA access to an RBD LUN its gateways share, in the words of SPC-4 (active/optimized while it
     * holds the image, standby while another gateway does, transitioning while the image moves); null for other LUNs.
     */
    public String accessState() {
        ImageOwnership image = imageOwnership();
        if (image == null) {
            return null;
        }
        return switch (image.state()) {
            case OWNER -> "active/optimized";
            case STANDBY -> "standby";
            case TAKING_OVER, RECOVERING -> "transitioning";
        };
    }

    /** "target IQN LUN N", for log lines. */
    String describe() {
        return "target " + target + " LUN " + definition.id();
    }

    /** Closes the companions, newest first, then flushes and closes the device. */
    void close() {
        String what = describe();
        for (int i = companions.size() - 1; i >= 0; i--) {
            DeviceShutdown.closeQuietly(companions.get(i), what);
        }
        DeviceShutdown.flushAndClose(device, what);
    }
}
