package io.numaiscsi.fiotests.bench;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** The result table, as aligned text for the terminal and as Markdown for the README. */
final class ReportTables {
    private ReportTables() {}

    static String text(BenchReport r) {
        StringBuilder sb = new StringBuilder();
        sb.append(header(r, "")).append('\n');
        String fmt = "%-18s %-12s %9s %9s %8s %8s %9s %6s %6s %6s | %7s %7s %7s  %s%n";
        sb.append(String.format(
                Locale.ROOT,
                fmt,
                "cell",
                "target",
                "IOPS",
                "MB/s",
                "p50us",
                "p99us",
                "cpuus/IO",
                "cores",
                "fio",
                "ceil%",
                "IOPSx",
                "CPU/IOx",
                "p99x",
                "goals (" + r.subject() + ")"));
        Map<String, Comparison> cmp = comparisons(r);
        for (Workload w : r.workloads()) {
            boolean first = true;
            for (String t : r.targets()) {
                CellSummary m = median(r, w.id(), t);
                if (m == null) {
                    continue;
                }
                Comparison c = cmp.get(w.id() + '\u0000' + t);
                sb.append(String.format(
                        Locale.ROOT,
                        fmt,
                        first ? w.id() : "",
                        t + (m.failed() > 0 ? "!" + m.failed() : ""),
                        num(m.iops(), 0),
                        num(m.bandwidthBytes() / 1e6, 1),
                        num(m.p50Micros(), 0),
                        num(m.p99Micros(), 0),
                        num(m.cpuMicrosPerIo(), 2),
                        num(m.targetCores(), 2),
                        num(m.fioCores(), 2),
                        num(Stats.ratio(m.bandwidthBytes(), r.ceiling().forSessions(w.sessions())) * 100, 0),
                        c == null ? "" : x(c.iopsRatio()),
                        c == null ? "" : x(c.cpuPerIoRatio()),
                        c == null ? "" : x(c.p99Ratio()),
                        c == null ? "" : c.goals()));
                first = false;
            }
        }
        sb.append(legend(r));
        return sb.toString();
    }

    static String markdown(BenchReport r) {
        StringBuilder sb = new StringBuilder();
        sb.append(header(r, "- ")).append('\n');
        sb.append(
                "| cell | target | IOPS | MB/s | p50 µs | p99 µs | CPU µs/IO | cores | fio cores | % loopback | IOPS ×tgtd "
                        + "| CPU/IO ×tgtd | p99 ×tgtd | goals |\n");
        sb.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
        Map<String, Comparison> cmp = comparisons(r);
        for (Workload w : r.workloads()) {
            for (String t : r.targets()) {
                CellSummary m = median(r, w.id(), t);
                if (m == null) {
                    continue;
                }
                Comparison c = cmp.get(w.id() + '\u0000' + t);
                sb.append("| ")
                        .append(w.id())
                        .append(" | ")
                        .append(t)
                        .append(m.failed() > 0 ? " (" + m.failed() + " failed)" : "")
                        .append(" | ")
                        .append(num(m.iops(), 0))
                        .append(" | ")
                        .append(num(m.bandwidthBytes() / 1e6, 1))
                        .append(" | ")
                        .append(num(m.p50Micros(), 0))
                        .append(" | ")
                        .append(num(m.p99Micros(), 0))
                        .append(" | ")
                        .append(num(m.cpuMicrosPerIo(), 2))
                        .append(" | ")
                        .append(num(m.targetCores(), 2))
                        .append(" | ")
                        .append(num(m.fioCores(), 2))
                        .append(" | ")
                        .append(num(Stats.ratio(m.bandwidthBytes(), r.ceiling().forSessions(w.sessions())) * 100, 0))
                        .append(" | ")
                        .append(c == null ? "" : x(c.iopsRatio()))
                        .append(" | ")
                        .append(c == null ? "" : x(c.cpuPerIoRatio()))
                        .append(" | ")
                        .append(c == null ? "" : x(c.p99Ratio()))
                        .append(" | ")
                        .append(c == null ? "" : c.goals())
                        .append(" |\n");
            }
        }
        sb.append('\n').append(legend(r));
        return sb.toString();
    }

    private static String header(BenchReport r, String bullet) {
        BenchReport.Settings s = r.settings();
        StringBuilder sb = new StringBuilder();
        sb.append(bullet).append("date: ").append(r.machine().date()).append('\n');
        sb.append(bullet).append("machine: ").append(r.machine().oneLine()).append('\n');
        sb.append(bullet)
                .append(String.format(
                        Locale.ROOT,
                        "run: %d repeat(s) x %d s per cell and target, order %s, LUNs: %s",
                        s.repeats(),
                        s.runtimeSeconds(),
                        s.order(),
                        s.lunSize()))
                .append('\n');
        sb.append(bullet).append("loopback TCP ceiling (iperf3):");
        if (r.ceiling().bytesPerSecondByStreams().isEmpty()) {
            sb.append(" not measured");
        }
        r.ceiling()
                .bytesPerSecondByStreams()
                .forEach((streams, bps) ->
                        sb.append(String.format(Locale.ROOT, " %d stream(s) %.0f MB/s;", streams, bps / 1e6)));
        sb.append('\n');
        return sb.toString();
    }

    private static String legend(BenchReport r) {
        return "medians of repeats; cpuus/IO = target process utime+stime (all threads) over the fio run / I/Os; "
                + "cores = that CPU / wall time; fio = the load generator's own CPU in cores (fio's usr_cpu + sys_cpu); ceil% = bandwidth / loopback ceiling for as many streams as sessions; "
                + "x columns = target / " + r.baseline()
                + " (CPU/IO and p99: lower is better); goals: 4k randread IOPS >= 3x, "
                + "512k seq read >= 90% of loopback and >= " + r.baseline()
                + ", CPU/IO <= 0.5x; \"!N\" = N failed runs\n";
    }

    private static Map<String, Comparison> comparisons(BenchReport r) {
        Map<String, Comparison> m = new HashMap<>();
        for (Comparison c : r.ratios()) {
            m.put(c.cell() + '\u0000' + c.target(), c);
        }
        return m;
    }

    private static CellSummary median(BenchReport r, String cell, String target) {
        for (CellSummary m : r.medians()) {
            if (m.cell().equals(cell) && m.target().equals(target)) {
                return m;
            }
        }
        return null;
    }

    static String num(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    static String x(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }
}
