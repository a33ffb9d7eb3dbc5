package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** results.json round trip, the text and Markdown tables, and the PNG chart, on a made-up run. */
class BenchReportTest {

    static BenchReport report() {
        List<Workload> ws =
                List.of(Workload.parseLine("rr4k randread 4k 32 1 1"), Workload.parseLine("sr512k read 512k 8 1 1"));
        List<Sample> s = new ArrayList<>();
        for (int rep = 1; rep <= 3; rep++) {
            s.add(CellSummaryTest.sample("rr4k-qd32-nj1", "tgtd", rep, 20000, 200000, 2.0));
            s.add(CellSummaryTest.sample("rr4k-qd32-nj1", "per-lun", rep, 66000, 660000, 2.0));
            s.add(CellSummaryTest.sample("rr4k-qd32-nj1", "centralized", rep, 30000, 300000, 2.0));
            s.add(CellSummaryTest.sample("sr512k-qd8-nj1", "tgtd", rep, 3000, 30000, 3.0));
            s.add(CellSummaryTest.sample("sr512k-qd8-nj1", "per-lun", rep, 3500, 35000, 1.0));
        }
        s.add(new Sample("sr512k-qd8-nj1", "centralized", 1, FioResult.FAILED, 0.1, 1.0, 0.5, "fio/f.json"));
        return BenchReport.of(
                new BenchReport.Settings(3, 10, 5, "1G", "per cell: tgtd per-lun centralized x3"),
                new MachineInfo("2026-11-01T10:00:00Z", 2, "AMD EPYC", "6.1.0", "openjdk 17", "fio-3.33", "1.0.85"),
                new Ceiling(Map.of(1, 1.95e9)),
                List.of("tgtd", "per-lun", "centralized"),
                ws,
                s);
    }

    @Test
    void jsonRoundTripKeepsSamplesMediansAndRatios(@TempDir Path dir) throws Exception {
        BenchReport r = report();
        Path file = dir.resolve("results.json");
        r.write(file);
        BenchReport back = BenchReport.read(file);
        assertEquals(r.samples().size(), back.samples().size());
        assertEquals(r.workloads(), back.workloads());
        assertEquals(r.medians().get(1).iops(), back.medians().get(1).iops());
        assertEquals(3.3, back.ratios().get(0).iopsRatio(), 1e-9);
        assertEquals(1.95e9, back.ceiling().forSessions(1));
        assertTrue(
                Double.isNaN(back.samples().get(back.samples().size() - 1).fio().iops()), "a failed run stays NaN");
        assertEquals(r.ratios(), back.recomputed().ratios());
    }

    @Test
    void textTableShowsRatiosAndGoals() {
        String t = ReportTables.text(report());
        String perLun = line(t, "per-lun", 0);
        // 4k: 3.3x tgtd IOPS; CPU/IO = (2 s/660000) / (2 s/200000) = 0.30x
        assertTrue(perLun.contains("3.30x") && perLun.contains("0.30x") && perLun.endsWith("met"), perLun);
        String central = line(t, "centralized", 0);
        assertTrue(central.contains("1.50x") && !central.contains("met"), central);
        // 512k: per-lun 3500*4096... bandwidth from the made-up samples, CPU/IO (1/35000)/(3/30000) = 0.29x
        String seq = line(t, "per-lun", 1);
        assertTrue(seq.contains("1.17x") && seq.contains("0.29x") && seq.contains("MISSED BW 1%<90% of loopback"), seq);
        assertTrue(line(t, "centralized", 1).contains("centralized!1"), "failed runs are flagged");
        assertTrue(t.contains("1 stream(s) 1950 MB/s"), t);
    }

    @Test
    void markdownTableHasHeaderMachineAndOneRowPerTargetAndCell() {
        String md = ReportTables.markdown(report());
        assertTrue(md.contains("- machine: nproc 2, AMD EPYC, kernel 6.1.0, openjdk 17"), md);
        assertTrue(md.contains("- date: 2026-11-01T10:00:00Z"), md);
        long rows = md.lines()
                .filter(l -> l.startsWith("| rr4k") || l.startsWith("| sr512k"))
                .count();
        assertEquals(6, rows);
        assertTrue(md.contains("| rr4k-qd32-nj1 | per-lun | 66000 |"), md);
    }

    @Test
    void chartIsAPng(@TempDir Path dir) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path png = dir.resolve("ratios.png");
        RatioChart.writePng(report(), png);
        byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
        assertEquals(
                4, RatioChart.build(report()).getSeriesMap().size(), "IOPS and CPU/IO for each non-baseline target");
    }

    private static String line(String table, String target, int occurrence) {
        return table.lines()
                .filter(l -> l.matches("^\\S*\\s+" + target + "\\b.*"))
                .skip(occurrence)
                .findFirst()
                .orElse("")
                .strip();
    }
}
