package io.numaiscsi.fiotests.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything one benchmark run produced, as written to {@code results.json}: settings, machine,
 * loopback ceiling, every raw sample, the medians per cell and target, and the ratios to the baseline.
 */
record BenchReport(
        Settings settings,
        MachineInfo machine,
        Ceiling ceiling,
        List<String> targets,
        String baseline,
        String subject,
        List<Workload> workloads,
        List<Sample> samples,
        List<CellSummary> medians,
        List<Comparison> ratios) {

    /** How the run was made; {@code lunSize} as given to run-bench.sh. */
    record Settings(int repeats, int runtimeSeconds, int warmupSeconds, String lunSize, String order) {}

    static BenchReport of(
            Settings settings,
            MachineInfo machine,
            Ceiling ceiling,
            List<String> targets,
            List<Workload> workloads,
            List<Sample> samples) {
        String baseline = targets.get(0);
        String subject = targets.size() > 1 ? targets.get(1) : baseline;
        List<CellSummary> medians = CellSummary.summarize(samples);
        return new BenchReport(
                settings,
                machine,
                ceiling,
                List.copyOf(targets),
                baseline,
                subject,
                workloads,
                samples,
                medians,
                Comparison.compare(workloads, medians, baseline, subject, ceiling));
    }

    /** Recomputes medians and ratios from the raw samples (after a change to the statistics). */
    BenchReport recomputed() {
        return of(settings, machine, ceiling, targets, workloads, samples);
    }

    static ObjectMapper mapper() {
        return new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    void write(Path file) throws IOException {
        mapper().writeValue(file.toFile(), this);
    }

    static BenchReport read(Path file) throws IOException {
        return mapper().readValue(file.toFile(), BenchReport.class);
    }
}
