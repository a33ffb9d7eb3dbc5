package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CellSummaryTest {

    static Sample sample(String cell, String target, int rep, double iops, long ios, double cpuSeconds) {
        return new Sample(
                cell,
                target,
                rep,
                new FioResult(iops, iops * 4096, ios, 100 * rep, 1000 * rep, 0, 0.5),
                cpuSeconds,
                10.0,
                0.5,
                "fio/x.json");
    }

    @Test
    void mediansPerCellAndTargetInFirstSeenOrder() {
        List<Sample> s = List.of(
                sample("c1", "tgtd", 1, 100, 1000, 1.0), sample("c1", "this", 1, 300, 3000, 0.3),
                sample("c1", "tgtd", 2, 120, 1200, 1.2), sample("c1", "this", 2, 330, 3300, 0.33),
                sample("c1", "tgtd", 3, 90, 900, 0.9), sample("c1", "this", 3, 310, 3100, 0.31));
        List<CellSummary> m = CellSummary.summarize(s);
        assertEquals(
                List.of("tgtd", "this"), m.stream().map(CellSummary::target).toList());
        CellSummary tgtd = m.get(0);
        assertEquals(3, tgtd.runs());
        assertEquals(0, tgtd.failed());
        assertEquals(100.0, tgtd.iops());
        assertEquals(100.0 * 4096, tgtd.bandwidthBytes());
        assertEquals(200.0, tgtd.p50Micros());
        assertEquals(2000.0, tgtd.p99Micros());
        assertEquals(1000.0, tgtd.cpuMicrosPerIo(), 1e-9); // 1 s / 1000 I/Os in every repeat
        assertEquals(0.1, tgtd.targetCores(), 1e-12);
        assertEquals(100.0, m.get(1).cpuMicrosPerIo(), 1e-9);
    }

    @Test
    void failedRunsAreCountedAndLeftOutOfMedians() {
        List<Sample> s = List.of(
                sample("c", "t", 1, 100, 1000, 1.0),
                sample("c", "t", 2, 200, 2000, 1.0),
                new Sample("c", "t", 3, FioResult.FAILED, 0.5, 3.0, 0.5, "fio/y.json"));
        CellSummary m = CellSummary.summarize(s).get(0);
        assertEquals(3, m.runs());
        assertEquals(1, m.failed());
        assertEquals(150.0, m.iops());
        assertEquals(750.0, m.cpuMicrosPerIo(), 1e-9);
    }
}
