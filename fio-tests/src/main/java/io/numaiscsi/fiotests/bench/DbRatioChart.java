package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * PNG bar chart of a database benchmark's ratios to tgtd ({@link DbRatios}): one series per variant, one bar group per
 * metric (and mix). Called by run-wiredtiger-bench.sh and run-pgbench-bench.sh:
 *
 * <pre>
 * DbRatioChart --results results.tsv --out chart.png --title TITLE --baseline tgtd [--group mix]
 *              --metric COLUMN:up|down:LABEL [--metric ...]
 * </pre>
 */
public final class DbRatioChart {
    private DbRatioChart() {}

    public static void main(String[] args) throws IOException {
        Path results = null;
        Path out = null;
        String title = "ratio to tgtd";
        String baseline = "tgtd";
        String group = null;
        List<DbRatios.Metric> metrics = new ArrayList<>();
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                usage("no value after " + args[i]);
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--results" -> results = Path.of(v);
                case "--out" -> out = Path.of(v);
                case "--title" -> title = v;
                case "--baseline" -> baseline = v;
                case "--group" -> group = v;
                case "--metric" -> metrics.add(DbRatios.Metric.parse(v));
                default -> usage("unknown option " + args[i]);
            }
        }
        if (results == null || out == null || metrics.isEmpty()) {
            usage("--results, --out and at least one --metric are required");
        }
        List<Map<String, String>> rows = DbRatios.readTsv(results);
        DbRatios ratios = DbRatios.compute(rows, baseline, group, metrics);
        writePng(build(ratios, title, baseline), out);
        System.out.println(ratios);
    }

    static CategoryChart build(DbRatios ratios, String title, String baseline) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1200)
                .height(600)
                .title(title)
                .xAxisTitle("metric")
                .yAxisTitle("ratio to " + baseline + " (above 1: better than " + baseline + ")")
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLabelRotation(30);
        chart.getStyler().setAvailableSpaceFill(0.8);
        chart.getStyler().setYAxisMin(0.0);
        ratios.ratiosByVariant()
                .forEach((variant, values) -> chart.addSeries(
                        variant,
                        ratios.categories(),
                        values.stream().map(DbRatioChart::zeroIfMissing).toList()));
        return chart;
    }

    static void writePng(CategoryChart chart, Path file) throws IOException {
        String name = file.toString();
        BitmapEncoder.saveBitmap(
                chart,
                name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
                BitmapEncoder.BitmapFormat.PNG);
    }

    private static double zeroIfMissing(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? 0.0 : v;
    }

    private static void usage(String why) {
        System.err.println("DbRatioChart: " + why);
        System.err.println("usage: DbRatioChart --results TSV --out PNG [--title T] [--baseline tgtd] [--group COLUMN] "
                + "--metric COLUMN:up|down:LABEL ...");
        System.exit(2);
    }
}
