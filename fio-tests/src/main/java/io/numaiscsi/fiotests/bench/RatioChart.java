package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/** PNG bar chart of the ratios to the baseline per cell: IOPS ratio and CPU-per-I/O ratio of every other target. */
final class RatioChart {
    private RatioChart() {}

    static CategoryChart build(BenchReport r) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1400)
                .height(700)
                .title("numa-iscsi-target vs " + r.baseline()
                        + " (medians; IOPS: higher is better, CPU per I/O: lower is better)")
                .xAxisTitle("cell")
                .yAxisTitle("ratio to " + r.baseline())
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setXAxisLabelRotation(30);
        chart.getStyler().setAvailableSpaceFill(0.8);
        List<String> cells = new ArrayList<>();
        for (Workload w : r.workloads()) {
            cells.add(w.id());
        }
        for (String t : r.targets()) {
            if (t.equals(r.baseline())) {
                continue;
            }
            List<Double> iops = new ArrayList<>();
            List<Double> cpu = new ArrayList<>();
            for (String cell : cells) {
                Comparison c = find(r, cell, t);
                iops.add(c == null ? 0.0 : zeroIfNaN(c.iopsRatio()));
                cpu.add(c == null ? 0.0 : zeroIfNaN(c.cpuPerIoRatio()));
            }
            chart.addSeries(t + " IOPS / " + r.baseline(), cells, iops);
            chart.addSeries(t + " CPU per I/O / " + r.baseline(), cells, cpu);
        }
        return chart;
    }

    static void writePng(BenchReport r, Path file) throws IOException {
        String name = file.toString();
        BitmapEncoder.saveBitmap(
                build(r),
                name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
                BitmapEncoder.BitmapFormat.PNG);
    }

    private static Comparison find(BenchReport r, String cell, String target) {
        for (Comparison c : r.ratios()) {
            if (c.cell().equals(cell) && c.target().equals(target)) {
                return c;
            }
        }
        return null;
    }

    private static double zeroIfNaN(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? 0.0 : v;
    }
}
