package io.numaiscsi.daemon.metrics;

import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.scsi.CommandCounters;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Every LUN's {@link CommandCounters} as Prometheus metrics labelled by target and LUN, built at each scrape from the
 * LUNs there are now: a LUN added or removed while the daemon runs appears or goes with no meter to register. The
 * latency histogram is our own fixed-bucket one (counted on the LUN's thread without allocating), exported as a
 * Prometheus histogram.
 */
final class LunCommandCollector implements MultiCollector {
    /** SPC-4 table 28, by sense key; 0xC is obsolete. */
    private static final String[] SENSE_KEYS = {
        "no_sense",
        "recovered_error",
        "not_ready",
        "medium_error",
        "hardware_error",
        "illegal_request",
        "unit_attention",
        "data_protect",
        "blank_check",
        "vendor_specific",
        "copy_aborted",
        "aborted_command",
        "obsolete_c",
        "volume_overflow",
        "miscompare",
        "completed"
    };

    private static final double[] BOUNDS = withInfinity(CommandCounters.latencyBoundsSeconds());

    private final Supplier<List<TargetDaemon.MeasuredLun>> luns;

    LunCommandCollector(Supplier<List<TargetDaemon.MeasuredLun>> luns) {
        this.luns = luns;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder commands = CounterSnapshot.builder()
                .name("iscsi_lun_commands")
                .help("SCSI commands the LUN executed and completed, by op (read, write, other)");
        CounterSnapshot.Builder bytes = CounterSnapshot.builder()
                .name("iscsi_lun_bytes")
                .help("data bytes of READs (op=read) and WRITEs (op=write) that ended GOOD");
        HistogramSnapshot.Builder latency = HistogramSnapshot.builder()
                .name("iscsi_lun_command_latency_seconds")
                .help("from the command PDU's arrival until the LUN completed it (Data-Out of writes included, "
                        + "sending the response not), by op");
        GaugeSnapshot.Builder executing = GaugeSnapshot.builder()
                .name("iscsi_lun_commands_executing")
                .help("commands started on the LUN's thread and not yet completed (backing I/O in flight included)");
        CounterSnapshot.Builder checks = CounterSnapshot.builder()
                .name("iscsi_lun_check_conditions")
                .help("commands answered CHECK CONDITION, by sense key (also those refused before executing)");
        for (TargetDaemon.MeasuredLun lun : luns.get()) {
            CommandCounters c = lun.counters();
            String id = Integer.toString(lun.lun());
            for (CommandCounters.Op op : CommandCounters.Op.values()) {
                String name = op.name().toLowerCase(Locale.ROOT);
                Labels labels = Labels.of("target", lun.target(), "lun", id, "op", name);
                // the buckets first: the count is their sum, so a command completing meanwhile cannot make them differ
                long[] buckets = c.latencyBuckets(op);
                latency.dataPoint(HistogramDataPointSnapshot.builder()
                        .labels(labels)
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(BOUNDS, buckets))
                        .sum(c.latencySumNanos(op) / 1e9)
                        .build());
                commands.dataPoint(CounterDataPointSnapshot.builder()
                        .labels(labels)
                        .value((double) c.commands(op))
                        .build());
                if (op != CommandCounters.Op.OTHER) {
                    bytes.dataPoint(CounterDataPointSnapshot.builder()
                            .labels(labels)
                            .value((double) c.bytes(op))
                            .build());
                }
            }
            Labels lunLabels = Labels.of("target", lun.target(), "lun", id);
            executing.dataPoint(GaugeDataPointSnapshot.builder()
                    .labels(lunLabels)
                    .value((double) c.executing())
                    .build());
            for (int key = 0; key < SENSE_KEYS.length; key++) {
                checks.dataPoint(CounterDataPointSnapshot.builder()
                        .labels(lunLabels.add("sense_key", SENSE_KEYS[key]))
                        .value((double) c.checkConditions(key))
                        .build());
            }
        }
        return MetricSnapshots.of(commands.build(), bytes.build(), latency.build(), executing.build(), checks.build());
    }

    private static double[] withInfinity(double[] bounds) {
        double[] all = Arrays.copyOf(bounds, bounds.length + 1);
        all[bounds.length] = Double.POSITIVE_INFINITY;
        return all;
    }
}
