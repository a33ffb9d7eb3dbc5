package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.scsi.ItNexus;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import io.numaiscsi.scsi.ScsiTask;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.SessionTable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LunCommandCollectorTest {
    private static final String IQN = "iqn.2024-01.io.numaiscsi:t";
    private static final ItNexus NEXUS = new ItNexus("iqn.1994-05.com.redhat:i", 1, IQN, 1);

    private final LogicalUnit unit =
            new LogicalUnit(3, LunIdentity.derive(IQN, 3, null), new RamBlockDevice(1 << 20, 512));
    private final ScsiTarget target = new ScsiTarget(IQN, List.of(unit), UnpooledByteBufAllocator.DEFAULT);
    private final List<TargetDaemon.MeasuredLun> luns = new CopyOnWriteArrayList<>(
            List.of(new TargetDaemon.MeasuredLun(IQN, 3, DataTouches.singleNode(), unit.counters())));
    private final DaemonMetrics metrics =
            new DaemonMetrics(new EventThreadRegistry(), new SessionTable(), List::of).luns(() -> luns);

    /** A READ(10) of one block at {@code lba}, counted as the transport does, {@code latencyNanos} after arrival. */
    private void read(long lba, long latencyNanos) {
        ScsiTask t = new ScsiTask(done -> {});
        byte[] cdb = {0x28, 0, (byte) (lba >>> 24), (byte) (lba >>> 16), (byte) (lba >>> 8), (byte) lba, 0, 0, 1, 0};
        t.init(NEXUS, 3, Unpooled.wrappedBuffer(cdb), 0, cdb.length, 512, true, false);
        if (target.prepare(t)) {
            unit.counters().started();
            target.execute(t);
            unit.counters().completed(t, latencyNanos);
        } else {
            unit.counters().checkCondition(t);
        }
        t.recycle();
    }

    @Test
    void commandsBytesAndTheLatencyHistogramCarryTargetAndLun() {
        read(0, 80_000);
        read(1, 80_000);
        read(2, 3_000_000_000L);
        String text = metrics.scrape();
        String lun = "lun=\"3\",op=\"read\",target=\"" + IQN + "\"";
        assertTrue(text.contains("iscsi_lun_commands_total{" + lun + "} 3"), text);
        assertTrue(text.contains("iscsi_lun_bytes_total{" + lun + "} 1536"), text);
        assertTrue(text.contains("# TYPE iscsi_lun_command_latency_seconds histogram"), text);
        assertTrue(text.contains("iscsi_lun_command_latency_seconds_bucket{" + lun + ",le=\"5.0E-5\"} 0"), text);
        assertTrue(text.contains("iscsi_lun_command_latency_seconds_bucket{" + lun + ",le=\"1.0E-4\"} 2"), text);
        assertTrue(text.contains("iscsi_lun_command_latency_seconds_bucket{" + lun + ",le=\"1.0\"} 2"), text);
        assertTrue(text.contains("iscsi_lun_command_latency_seconds_bucket{" + lun + ",le=\"+Inf\"} 3"), text);
        assertTrue(text.contains("iscsi_lun_command_latency_seconds_count{" + lun + "} 3"), text);
        assertTrue(text.contains("iscsi_lun_command_latency_seconds_sum{" + lun + "} 3.00016"), text);
        assertTrue(text.contains("iscsi_lun_commands_executing{lun=\"3\",target=\"" + IQN + "\"} 0"), text);
    }

    @Test
    void aReadBeyondTheEndCountsAsIllegalRequest() {
        read(1 << 20, 1);
        String text = metrics.scrape();
        assertTrue(
                text.contains("iscsi_lun_check_conditions_total{lun=\"3\",sense_key=\"illegal_request\",target=\"" + IQN
                        + "\"} 1"),
                text);
        assertTrue(
                text.contains("iscsi_lun_check_conditions_total{lun=\"3\",sense_key=\"medium_error\",target=\"" + IQN
                        + "\"} 0"),
                text);
    }

    @Test
    void aLunRemovedLeavesTheScrape() {
        read(0, 1);
        assertTrue(metrics.scrape().contains("iscsi_lun_commands_total{lun=\"3\""));
        luns.clear();
        String text = metrics.scrape();
        assertFalse(text.contains("lun=\"3\""), text);
        assertEquals(-1, text.indexOf("iscsi_lun_commands_total{"), text);
    }
}
