package io.numaiscsi.daemon.metrics;

import io.numaiscsi.daemon.iser.IserPortals;
import io.numaiscsi.iser.IserStats;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/** Each iSER portal's traffic (RFC 7145), connections closed and live, labelled by the portal's address. */
final class IserPortalCollector implements MultiCollector {
    private record Counter(String name, String help, ToLongFunction<IserStats> value) {}

    private static final List<Counter> COUNTERS = List.of(
            new Counter("iser_receives", "iSER Sends received from initiators (one PDU each)", IserStats::receives),
            new Counter("iser_sends", "iSER Sends posted to initiators", IserStats::sends),
            new Counter("iser_rdma_writes", "RDMA Writes posted (data-in)", IserStats::rdmaWrites),
            new Counter("iser_rdma_reads", "RDMA Reads posted (data-out)", IserStats::rdmaReads),
            new Counter("iser_written_bytes", "data-in bytes RDMA-Written", IserStats::bytesWritten),
            new Counter("iser_read_bytes", "data-out bytes RDMA-Read", IserStats::bytesRead),
            new Counter(
                    "iser_written_in_place_bytes",
                    "data-in bytes RDMA-Written straight from registered cache memory",
                    IserStats::bytesWrittenInPlace));

    private final Supplier<List<IserPortals.MeasuredPortal>> portals;

    IserPortalCollector(Supplier<List<IserPortals.MeasuredPortal>> portals) {
        this.portals = portals;
    }

    @Override
    public MetricSnapshots collect() {
        List<IserPortals.MeasuredPortal> now = portals.get();
        MetricSnapshots.Builder out = MetricSnapshots.builder();
        if (now.isEmpty()) {
            return out.build();
        }
        IserStats[] stats = new IserStats[now.size()];
        for (int i = 0; i < stats.length; i++) {
            stats[i] = now.get(i).stats().get();
        }
        for (Counter c : COUNTERS) {
            CounterSnapshot.Builder counter =
                    CounterSnapshot.builder().name(c.name()).help(c.help());
            for (int i = 0; i < stats.length; i++) {
                counter.dataPoint(CounterDataPointSnapshot.builder()
                        .labels(Labels.of("portal", now.get(i).address()))
                        .value((double) c.value().applyAsLong(stats[i]))
                        .build());
            }
            out.metricSnapshot(counter.build());
        }
        return out.build();
    }
}
