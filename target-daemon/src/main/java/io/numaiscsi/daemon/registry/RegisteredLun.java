package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.LogicalUnit;

/** A LUN as the registry holds it: where it is, what it was made from, its device and its SCSI unit. */
public record RegisteredLun(String target, LunDefinition definition, BlockDevice device, LogicalUnit unit) {
}
