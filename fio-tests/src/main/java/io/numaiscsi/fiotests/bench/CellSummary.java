package io.numaiscsi.fiotests.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Medians over the repeats of one cell against one target. */
record CellSummary(
        String cell,
        String target,
        int runs,
        int failed,
        double iops,
        double bandwidthBytes,
        double p50Micros,
        double p99Micros,
        double cpuMicrosPerIo,
        double targetCores,
        double hostBusy,
        double fioCores) {

    /** Groups samples by (cell, target) in first-seen order and takes medians. */
    static List<CellSummary> summarize(List<Sample> samples) {
        Map<String, List<Sample>> groups = new LinkedHashMap<>();
        for (Sample s : samples) {
            groups.computeIfAbsent(s.cell() + '\u0000' + s.target(), k -> new ArrayList<>())
                    .add(s);
        }
        List<CellSummary> out = new ArrayList<>();
        for (List<Sample> g : groups.values()) {
            int failed = (int) g.stream().filter(s -> !s.fio().ok()).count();
            out.add(new CellSummary(
                    g.get(0).cell(),
                    g.get(0).target(),
                    g.size(),
                    failed,
                    median(g, s -> s.fio().ok() ? s.fio().iops() : Double.NaN),
                    median(g, s -> s.fio().ok() ? s.fio().bandwidthBytes() : Double.NaN),
                    median(g, s -> s.fio().p50Micros()),
                    median(g, s -> s.fio().p99Micros()),
                    median(g, Sample::cpuMicrosPerIo),
                    median(g, Sample::targetCores),
                    median(g, Sample::hostBusy),
                    median(g, s -> s.fio().cores())));
        }
        return out;
    }

    private static double median(List<Sample> g, ToDoubleFunction<Sample> f) {
        return Stats.median(g.stream().mapToDouble(f).toArray());
    }
}
