package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ComparisonTest {
    private static final Ceiling CEILING = new Ceiling(Map.of(1, 2.0e9, 2, 2.4e9));

    static CellSummary median(String cell, String target, double iops, double bw, double cpuUs, double p99) {
        return new CellSummary(cell, target, 3, 0, iops, bw, 50, p99, cpuUs, 1.0, 0.5, 0.6);
    }

    @Test
    void ratiosAgainstTheBaselineForEveryOtherTarget() {
        Workload w = Workload.parseLine("rr4k randread 4k 32 1 1");
        List<Comparison> c = Comparison.compare(
                List.of(w),
                List.of(
                        median(w.id(), "tgtd", 20000, 20000 * 4096.0, 50, 2000),
                        median(w.id(), "per-lun", 70000, 70000 * 4096.0, 20, 1000),
                        median(w.id(), "centralized", 30000, 30000 * 4096.0, 40, 1500)),
                "tgtd",
                "per-lun",
                CEILING);
        assertEquals(2, c.size());
        Comparison perLun = c.get(0);
        assertEquals("per-lun", perLun.target());
        assertEquals(3.5, perLun.iopsRatio(), 1e-12);
        assertEquals(0.4, perLun.cpuPerIoRatio(), 1e-12);
        assertEquals(0.5, perLun.p99Ratio(), 1e-12);
        assertEquals(70000 * 4096.0 / 2.0e9, perLun.ofCeiling(), 1e-12);
        assertEquals("met", perLun.goals());
        assertEquals("", c.get(1).goals(), "goals are judged for the subject only");
        assertEquals(1.5, c.get(1).iopsRatio(), 1e-12);
    }

    @Test
    void missingBaselineGivesNaNRatios() {
        Workload w = Workload.parseLine("rr4k randread 4k 32 1 1");
        Comparison c = Comparison.compare(
                        List.of(w), List.of(median(w.id(), "per-lun", 1, 1, 1, 1)), "tgtd", "per-lun", Ceiling.NONE)
                .get(0);
        assertTrue(Double.isNaN(c.iopsRatio()));
        assertTrue(c.goals().startsWith("MISSED"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // workload line             | IOPS x | CPU/IO x | of ceiling | verdict
                "a randread 4k 32 1 1        | 3.0    | 0.5      | 0.1        | met",
                "a randread 4k 32 1 1        | 2.9    | 0.5      | 0.1        | MISSED IOPS 2.90x<3x",
                "a randread 4k 32 1 1        | 3.2    | 0.51     | 0.1        | MISSED CPU/IO 0.51x>0.5x",
                "a randwrite 4k 32 1 1       | 1.0    | 0.4      | 0.1        | met",
                "a randread 512 32 1 1       | 0.5    | 0.4      | 0.1        | met",
                "a read 512k 8 1 1           | 1.0    | 0.4      | 0.9        | met",
                "a read 512k 8 1 1           | 1.1    | 0.4      | 0.85       | MISSED BW 85%<90% of loopback",
                "a read 512k 8 1 1           | 0.95   | 0.4      | 0.95       | MISSED BW 0.95x<tgtd",
                "a read 512k 8 1 1           | NaN    | NaN      | NaN        | MISSED CPU/IO NaNx>0.5x; BW NaN%<90% of loopback; BW NaNx<tgtd"
            })
    void goals(String line, double iops, double cpu, double ofCeiling, String verdict) {
        assertEquals(verdict, Comparison.goals(Workload.parseLine(line), iops, cpu, ofCeiling));
    }
}
