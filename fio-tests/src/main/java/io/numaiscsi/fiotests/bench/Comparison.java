package io.numaiscsi.fiotests.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One target against the baseline (tgtd) in one cell, on medians: IOPS ratio (= bandwidth ratio),
 * CPU-per-I/O ratio (lower is better), p99 ratio, the target's bandwidth as a fraction of the loopback
 * ceiling, and the verdict on the project's goals (for the subject target only, else empty).
 */
record Comparison(
        String cell,
        String target,
        double iopsRatio,
        double cpuPerIoRatio,
        double p99Ratio,
        double ofCeiling,
        String goals) {

    static final double GOAL_RANDOM_READ_4K_IOPS = 3.0;
    static final double GOAL_SEQ_READ_OF_CEILING = 0.9;
    static final double GOAL_CPU_PER_IO = 0.5;

    static List<Comparison> compare(
            List<Workload> workloads, List<CellSummary> medians, String baseline, String subject, Ceiling ceiling) {
        Map<String, CellSummary> byKey = new HashMap<>();
        for (CellSummary m : medians) {
            byKey.put(m.cell() + '\u0000' + m.target(), m);
        }
        List<Comparison> out = new ArrayList<>();
        for (Workload w : workloads) {
            CellSummary base = byKey.get(w.id() + '\u0000' + baseline);
            for (CellSummary m : medians) {
                if (!m.cell().equals(w.id()) || m.target().equals(baseline)) {
                    continue;
                }
                double iops = base == null ? Double.NaN : Stats.ratio(m.iops(), base.iops());
                double cpu = base == null ? Double.NaN : Stats.ratio(m.cpuMicrosPerIo(), base.cpuMicrosPerIo());
                double p99 = base == null ? Double.NaN : Stats.ratio(m.p99Micros(), base.p99Micros());
                double ofCeiling = Stats.ratio(m.bandwidthBytes(), ceiling.forSessions(w.sessions()));
                String goals = m.target().equals(subject) ? goals(w, iops, cpu, ofCeiling) : "";
                out.add(new Comparison(w.id(), m.target(), iops, cpu, p99, ofCeiling, goals));
            }
        }
        return out;
    }

    /** "met" or the goals missed, e.g. "MISSED IOPS 2.10x<3x; CPU/IO 0.62x>0.5x". */
    static String goals(Workload w, double iopsRatio, double cpuRatio, double ofCeiling) {
        List<String> missed = new ArrayList<>();
        if (!(cpuRatio <= GOAL_CPU_PER_IO)) {
            missed.add(String.format("CPU/IO %.2fx>%.1fx", cpuRatio, GOAL_CPU_PER_IO));
        }
        if (w.randomRead4k() && !(iopsRatio >= GOAL_RANDOM_READ_4K_IOPS)) {
            missed.add(String.format("IOPS %.2fx<%.0fx", iopsRatio, GOAL_RANDOM_READ_4K_IOPS));
        }
        if (w.sequentialRead512k()) {
            if (!(ofCeiling >= GOAL_SEQ_READ_OF_CEILING)) {
                missed.add(
                        String.format("BW %.0f%%<%.0f%% of loopback", ofCeiling * 100, GOAL_SEQ_READ_OF_CEILING * 100));
            }
            if (!(iopsRatio >= 1.0)) {
                missed.add(String.format("BW %.2fx<tgtd", iopsRatio));
            }
        }
        return missed.isEmpty() ? "met" : "MISSED " + String.join("; ", missed);
    }
}
