package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;

class DbRatiosTest {

    private static final String WT = String.join(
                    "\n",
                    "variant\trepeat\tmix\tops_s\tread_p99_us\tupdate_p99_us",
                    "tgtd\t1\tA\t10\t1000\t200000",
                    "tgtd\t1\tC\t100\t4000\t0",
                    "write-back\t1\tA\t30\t500\t50000",
                    "write-back\t1\tC\t150\t2000\t0",
                    "tgtd\t2\tA\t20\t3000\t100000",
                    "tgtd\t2\tC\t300\t2000\t0",
                    "cache-off\t2\tA\t15\t1000\t100000",
                    "cache-off\t2\tC\t200\t3000\t0",
                    "write-back\t2\tA\t40\t1500\t50000",
                    "write-back\t2\tC\t250\t2000\t0",
                    "cache-off\t1\tA\t15\t1000\t100000",
                    "cache-off\t1\tC\t200\t3000\t0")
            + "\n";

    private static final List<DbRatios.Metric> METRICS = List.of(
            DbRatios.Metric.parse("ops_s:up:ops/s"),
            DbRatios.Metric.parse("read_p99_us:down:read p99"),
            DbRatios.Metric.parse("update_p99_us:down:update p99"));

    @Test
    void mediansPerVariantAndMixDividedSoThatAboveOneIsBetter(@TempDir Path dir) throws IOException {
        Path tsv = dir.resolve("results.tsv");
        Files.writeString(tsv, WT);
        DbRatios r = DbRatios.compute(DbRatios.readTsv(tsv), "tgtd", "mix", METRICS);
        assertEquals(
                List.of("A ops/s", "A read p99", "A update p99", "C ops/s", "C read p99", "C update p99"),
                r.categories());
        assertEquals(
                List.of("write-back", "cache-off"),
                List.copyOf(r.ratiosByVariant().keySet()),
                "rows' order, no baseline");
        List<Double> wb = r.ratiosByVariant().get("write-back");
        // A: tgtd medians ops 15, read p99 2000, update p99 150000; write-back 35, 1000, 50000
        assertEquals(35.0 / 15, wb.get(0), 1e-9);
        assertEquals(2.0, wb.get(1), 1e-9, "p99: tgtd / variant");
        assertEquals(3.0, wb.get(2), 1e-9);
        // C: tgtd 200, 3000; write-back 200, 2000; no updates in C: no ratio
        assertEquals(1.0, wb.get(3), 1e-9);
        assertEquals(1.5, wb.get(4), 1e-9);
        assertTrue(Double.isNaN(wb.get(5)), "a zero median is no value");
        List<Double> off = r.ratiosByVariant().get("cache-off");
        assertEquals(1.0, off.get(0), 1e-9);
        assertEquals(1.0, off.get(4), 1e-9, "C read p99: tgtd median of 4000 and 2000");
        assertEquals(2.0, off.get(1), 1e-9);
    }

    @Test
    void withoutGroupOneCategoryPerMetricAndMissingCellsAreNoValue() {
        List<Map<String, String>> rows = List.of(
                Map.of("variant", "tgtd", "tps", "16", "lat_p99_us", "500000"),
                Map.of("variant", "write-through", "tps", "32", "lat_p99_us", "-"));
        DbRatios r = DbRatios.compute(
                rows,
                "tgtd",
                null,
                List.of(DbRatios.Metric.parse("tps:up:tps"), DbRatios.Metric.parse("lat_p99_us:down:p99")));
        assertEquals(List.of("tps", "p99"), r.categories());
        assertEquals(2.0, r.ratiosByVariant().get("write-through").get(0), 1e-9);
        assertTrue(Double.isNaN(r.ratiosByVariant().get("write-through").get(1)));
    }

    @Test
    void badInputIsNamed(@TempDir Path dir) throws IOException {
        List<Map<String, String>> rows = List.of(Map.of("variant", "write-back", "tps", "3"));
        assertThrows(
                IllegalArgumentException.class,
                () -> DbRatios.compute(rows, "tgtd", null, List.of(DbRatios.Metric.parse("tps:up:tps"))),
                "no baseline rows");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> DbRatios.compute(rows, "write-back", null, List.of(DbRatios.Metric.parse("tpm:up:x"))));
        assertTrue(e.getMessage().contains("'tpm'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DbRatios.Metric.parse("tps:sideways:tps"));
        assertThrows(IllegalArgumentException.class, () -> DbRatios.Metric.parse("tps:up"));
        Path tsv = dir.resolve("short.tsv");
        Files.writeString(tsv, "variant\ttps\ntgtd\n");
        e = assertThrows(IllegalArgumentException.class, () -> DbRatios.readTsv(tsv));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void chartHasOneSeriesPerVariantAndWritesAPng(@TempDir Path dir) throws IOException {
        Path tsv = dir.resolve("results.tsv");
        Files.writeString(tsv, WT);
        DbRatios r = DbRatios.compute(DbRatios.readTsv(tsv), "tgtd", "mix", METRICS);
        CategoryChart chart = DbRatioChart.build(r, "t", "tgtd");
        assertEquals(2, chart.getSeriesMap().size());
        Path png = dir.resolve("chart.png");
        DbRatioChart.writePng(chart, png);
        byte[] head = Files.readAllBytes(png);
        assertTrue(head.length > 1000 && head[1] == 'P' && head[2] == 'N' && head[3] == 'G', "a PNG");
    }
}
