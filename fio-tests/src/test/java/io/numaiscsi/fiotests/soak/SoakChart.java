package io.numaiscsi.fiotests.soak;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The soak's samples as one PNG of six panels over minutes since the start: memory, descriptors and threads, collector
 * pauses, and per LUN IOPS, p99 and p99.9 latency. Daemon restarts are marked on the first three.
 */
final class SoakChart {
    private final Instant t0;
    private final List<Sampler.Resources> resources;
    private final List<Sampler.Lun> luns;
    private final List<SoakRecorder.Restart> restarts;

    SoakChart(
            Instant t0,
            List<Sampler.Resources> resources,
            List<Sampler.Lun> luns,
            List<SoakRecorder.Restart> restarts) {
        this.t0 = t0;
        this.resources = resources;
        this.luns = luns;
        this.restarts = restarts;
    }

    void write(Path png, String title) throws IOException {
        List<XYChart> charts = new ArrayList<>();
        XYChart memory = chart(title + ": memory", "MiB");
        for (String d : daemons()) {
            add(memory, d + " RSS", resourcesOf(d), Sampler.Resources::rssMiB);
            add(memory, d + " heap used", resourcesOf(d), Sampler.Resources::heapUsedMiB);
            add(memory, d + " heap after GC", resourcesOf(d), Sampler.Resources::heapAfterGcMiB);
            add(memory, d + " direct", resourcesOf(d), Sampler.Resources::directMiB);
            add(memory, d + " buffer budget", resourcesOf(d), Sampler.Resources::budgetMiB);
        }
        markRestarts(memory);
        charts.add(memory);
        XYChart counts = chart("file descriptors and threads", "count");
        for (String d : daemons()) {
            add(counts, d + " fds", resourcesOf(d), r -> r.fds());
            add(counts, d + " threads", resourcesOf(d), r -> r.threads());
        }
        markRestarts(counts);
        charts.add(counts);
        XYChart gc = chart("longest pause per sample", "ms");
        for (String d : daemons()) {
            add(gc, d + " collector", resourcesOf(d), Sampler.Resources::gcPauseMaxMs);
            add(gc, d + " other safepoint", resourcesOf(d), Sampler.Resources::safepointMaxMs);
        }
        markRestarts(gc);
        charts.add(gc);
        Map<String, List<Sampler.Lun>> byLun = new LinkedHashMap<>();
        luns.forEach(l -> byLun.computeIfAbsent(l.lun(), k -> new ArrayList<>()).add(l));
        XYChart iops = chart("commands per second per LUN (the daemon's counters)", "IOPS");
        XYChart p99 = chart("p99 latency per LUN (arrival to completion)", "ms");
        XYChart p999 = chart("p99.9 latency per LUN", "ms");
        p99.getStyler().setYAxisLogarithmic(true);
        p999.getStyler().setYAxisLogarithmic(true);
        for (Map.Entry<String, List<Sampler.Lun>> e : byLun.entrySet()) {
            if (e.getValue().stream().mapToDouble(Sampler.Lun::iops).max().orElse(0) < 1) {
                continue; // the chaos and CHAP targets: a few commands now and then
            }
            add(iops, e.getKey(), e.getValue(), Sampler.Lun::iops);
            add(p99, e.getKey(), e.getValue(), l -> l.p99Ms() > 0 ? l.p99Ms() : Double.NaN);
            add(p999, e.getKey(), e.getValue(), l -> l.p999Ms() > 0 ? l.p999Ms() : Double.NaN);
        }
        charts.add(iops);
        charts.add(p99);
        charts.add(p999);
        String name = png.toString();
        BitmapEncoder.saveBitmap(
                charts,
                3,
                2,
                name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
                BitmapEncoder.BitmapFormat.PNG);
    }

    private List<String> daemons() {
        return resources.stream().map(Sampler.Resources::daemon).distinct().toList();
    }

    private List<Sampler.Resources> resourcesOf(String daemon) {
        return resources.stream().filter(r -> r.daemon().equals(daemon)).toList();
    }

    private static XYChart chart(String title, String yTitle) {
        XYChart c = new XYChartBuilder()
                .width(900)
                .height(420)
                .title(title)
                .xAxisTitle("minutes")
                .yAxisTitle(yTitle)
                .build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setMarkerSize(3);
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        return c;
    }

    private double minutes(Instant at) {
        return Duration.between(t0, at).toMillis() / 60_000.0;
    }

    private <T> void add(XYChart chart, String name, List<T> rows, ToDoubleFunction<T> value) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (T row : rows) {
            double v = value.applyAsDouble(row);
            if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                x.add(minutes(row instanceof Sampler.Resources r ? r.at() : ((Sampler.Lun) row).at()));
                y.add(v);
            }
        }
        if (!x.isEmpty()) {
            chart.addSeries(name, x, y).setMarker(SeriesMarkers.NONE);
        }
    }

    private void markRestarts(XYChart chart) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (SoakRecorder.Restart r : restarts) {
            x.add(minutes(r.start()));
            y.add(0.0);
        }
        if (!x.isEmpty()) {
            chart.addSeries("restarts", x, y)
                    .setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter)
                    .setMarker(SeriesMarkers.DIAMOND);
        }
    }
}
