package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.CacheParameters;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.iser.IserPortals;
import io.numaiscsi.iser.IserStats;
import io.numaiscsi.iser.IserTouches;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.SessionTable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class DaemonMetricsTest {
    @Test
    void eventThreadsAppearInTheScrapeOnceTheyServedACommand() throws Exception {
        EventThreadRegistry threads = new EventThreadRegistry();
        DaemonMetrics metrics =
                new DaemonMetrics(threads, new SessionTable(), List::of, PooledByteBufAllocator.DEFAULT.metric());
        assertTrue(!metrics.scrape().contains("iscsi_thread_commands"), "no thread before any command");

        AtomicReference<String> name = new AtomicReference<>();
        Thread t = new Thread(
                () -> {
                    threads.current();
                    name.set(Thread.currentThread().getName());
                },
                "lun-event-test");
        t.start();
        t.join();

        String text = metrics.scrape();
        assertTrue(text.contains("iscsi_thread_commands_total{thread=\"lun-event-test\"} 0.0"), text);
        assertTrue(
                text.contains("iscsi_stage_delay_seconds_total{stage=\"lun_queue\",thread=\"lun-event-test\"}"), text);
        assertTrue(text.contains("iscsi_stage_commands_total{stage=\"execute\",thread=\"lun-event-test\"}"), text);
        assertTrue(text.contains("iscsi_sessions 0.0"), text);
        assertTrue(text.contains("netty_pooled_direct_bytes "), text);
    }

    @Test
    void iserCountersArePerPortal() {
        IserStats[] now = {IserStats.ZERO};
        IserTouches touches = IserTouches.unmeasured();
        DaemonMetrics metrics = new DaemonMetrics(new EventThreadRegistry(), new SessionTable(), List::of)
                .iserPortals(() -> List.of(new IserPortals.MeasuredPortal("10.0.0.1:3260", touches, () -> now[0])));
        assertTrue(metrics.scrape().contains("iser_rdma_writes_total{portal=\"10.0.0.1:3260\"} 0"), metrics.scrape());
        now[0] = new IserStats(5, 6, 3, 2, 3L << 20, 1L << 20, 2L << 20);
        String text = metrics.scrape();
        assertTrue(text.contains("iser_receives_total{portal=\"10.0.0.1:3260\"} 5"), text);
        assertTrue(text.contains("iser_rdma_writes_total{portal=\"10.0.0.1:3260\"} 3"), text);
        assertTrue(text.contains("iser_rdma_reads_total{portal=\"10.0.0.1:3260\"} 2"), text);
        assertTrue(text.contains("iser_written_bytes_total{portal=\"10.0.0.1:3260\"} 3145728"), text);
        assertTrue(text.contains("iser_written_in_place_bytes_total{portal=\"10.0.0.1:3260\"} 2097152"), text);
    }

    @Test
    void jvmMetricsAreExportedAndNoSampleReadsNegativeOrNaN() {
        DaemonMetrics metrics = new DaemonMetrics(
                new EventThreadRegistry(), new SessionTable(), List::of, PooledByteBufAllocator.DEFAULT.metric());
        String text = metrics.scrape();
        for (String name : new String[] {
            "jvm_memory_used_bytes{",
            "jvm_gc_",
            "jvm_threads_live_threads ",
            "jvm_classes_loaded_classes ",
            "system_cpu_count ",
            "process_uptime_seconds "
        }) {
            assertTrue(text.contains(name), name + " missing:\n" + text);
        }
        List<String> unknown = text.lines()
                .filter(l -> !l.startsWith("#"))
                .filter(l -> l.endsWith(" NaN") || l.matches(".* -[0-9.E]+$"))
                .toList();
        assertTrue(unknown.isEmpty(), "samples reading unknown: " + unknown);
    }

    @Test
    void writeBackDirtyBytesAndBatchesArePerCachedLun() throws Exception {
        NumaTopology topology = NumaTopology.detect();
        CacheParameters params = new CacheParameters(1L << 20, 64 << 10, 2, 1, 64 << 10, WritePolicy.WRITE_BACK);
        CachedBlockDevice device = CachedBlockDevice.create(
                new RamBlockDevice(4L << 20, 512), params, topology, NodeMemory.open(topology), null);
        try {
            List<TargetDaemon.CachedLun> luns =
                    new CopyOnWriteArrayList<>(List.of(new TargetDaemon.CachedLun("iqn.t", 0, device)));
            DaemonMetrics metrics = new DaemonMetrics(new EventThreadRegistry(), new SessionTable(), () -> luns);
            CompletableFuture<IoStatus> written = new CompletableFuture<>();
            device.write(0, Unpooled.wrappedBuffer(new byte[64 << 10]), false, written::complete);
            assertTrue(written.get() == IoStatus.OK);
            String text = metrics.scrape();
            assertTrue(text.contains("cache_dirty_bytes{lun=\"0\",target=\"iqn.t\"} 65536.0"), text);
            CompletableFuture<IoStatus> flushed = new CompletableFuture<>();
            device.flush(flushed::complete);
            assertTrue(flushed.get() == IoStatus.OK);
            text = metrics.scrape();
            assertTrue(text.contains("cache_dirty_bytes{lun=\"0\",target=\"iqn.t\"} 0.0"), text);
            assertTrue(text.contains("cache_writeback_batches_total{lun=\"0\",target=\"iqn.t\"} 1.0"), text);
            assertTrue(text.contains("cache_writeback_bytes_total{lun=\"0\",target=\"iqn.t\"} 65536.0"), text);
            luns.clear(); // the LUN removed while the daemon runs: its meters go with it
            text = metrics.scrape();
            assertTrue(!text.contains("cache_dirty_bytes{lun=\"0\""), text);
        } finally {
            device.close();
        }
    }
}
