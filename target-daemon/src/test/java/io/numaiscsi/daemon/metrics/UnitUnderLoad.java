package io.numaiscsi.daemon.metrics;

import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.scsi.ItNexus;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import io.numaiscsi.scsi.ScsiTask;
import java.util.List;

/**
 * A RAM LUN of 1 MiB in 512-byte blocks whose {@link io.numaiscsi.scsi.CommandCounters} count READ(10)s and
 * WRITE(10)s of one block as the transport counts them (decoded, started, completed after a given latency): the
 * status page reads nothing but the counters, so the data itself need not move.
 */
final class UnitUnderLoad {
    private static final ItNexus NEXUS = new ItNexus("iqn.1994-05.com.redhat:i", 1, "t", 1);

    private final LogicalUnit unit;
    private final ScsiTarget target;
    private final RegisteredLun registered;

    UnitUnderLoad(String iqn, int lun) {
        RamBlockDevice device = new RamBlockDevice(1 << 20, 512);
        unit = new LogicalUnit(lun, LunIdentity.derive(iqn, lun, null), device);
        target = new ScsiTarget(iqn, List.of(unit), UnpooledByteBufAllocator.DEFAULT);
        registered = new RegisteredLun(
                iqn, new LunDefinition(lun, BackingType.RAM, null, 1 << 20, 512, null), device, unit, List.of());
    }

    LogicalUnit unit() {
        return unit;
    }

    RegisteredLun registered() {
        return registered;
    }

    void read(int commands, long latencyNanos) {
        count(0x28, commands, latencyNanos, true);
    }

    void write(int commands, long latencyNanos) {
        count(0x2a, commands, latencyNanos, false);
    }

    private void count(int opcode, int commands, long latencyNanos, boolean read) {
        for (int i = 0; i < commands; i++) {
            ScsiTask t = new ScsiTask(done -> {});
            byte[] cdb = {(byte) opcode, 0, 0, 0, 0, (byte) i, 0, 0, 1, 0};
            t.init(NEXUS, unit.lun(), Unpooled.wrappedBuffer(cdb), 0, cdb.length, 512, read, !read);
            if (!target.prepare(t)) {
                throw new IllegalStateException("CDB " + opcode + " refused");
            }
            unit.counters().started();
            unit.counters().completed(t, latencyNanos);
            t.recycle();
        }
    }
}
