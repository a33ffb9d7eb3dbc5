package io.numaiscsi.fiotests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/** Where the bytes went: per load and LUN, MiB a CPU touched by kind, node-local apart from everything else. */
final class TouchChart {
    static final List<String> KINDS = List.of("socket_send", "socket_receive", "copy", "backing");

    private final Map<String, double[][]> rows = new LinkedHashMap<>();

    /** {@code byKind[k]} = {local, all} bytes of {@link #KINDS}.get(k). */
    void add(String label, double[][] byKind) {
        rows.put(label, byKind);
    }

    void writePng(Path file, String title) throws IOException {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1400)
                .height(700)
                .title(title)
                .xAxisTitle("phase, load, LUN")
                .yAxisTitle("MiB touched")
                .build();
        chart.getStyler().setStacked(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setXAxisLabelRotation(30);
        List<String> labels = new ArrayList<>(rows.keySet());
        for (int k = 0; k < KINDS.size(); k++) {
            List<Double> local = new ArrayList<>();
            for (double[][] r : rows.values()) {
                local.add(r[k][0] / (1 << 20));
            }
            chart.addSeries(KINDS.get(k) + ", node-local", labels, local);
        }
        List<Double> crossing = new ArrayList<>();
        for (double[][] r : rows.values()) {
            double sum = 0;
            for (double[] kind : r) {
                sum += kind[1] - kind[0];
            }
            crossing.add(sum / (1 << 20));
        }
        chart.addSeries("not node-local (any kind)", labels, crossing);
        String name = file.toString();
        BitmapEncoder.saveBitmap(
                chart,
                name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
                BitmapEncoder.BitmapFormat.PNG);
    }
}
