package io.numaiscsi.fiotests.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Every few seconds, per daemon: resident memory, descriptors and threads ({@code /proc}), heap, direct memory and the
 * buffer budget ({@code /metrics}), the heap after the last collection and the pauses since the last sample (the GC
 * log), and per LUN its commands per second and p99 / p99.9 latency (the difference of two scrapes of its histogram).
 * Rows go to {@code resources.csv} and {@code luns.csv} as they are taken; the verdict and the chart read them here.
 */
final class Sampler {
    /** Every this many samples a daemon's whole scrape is kept in {@code metrics/}. */
    static final int SCRAPES_KEPT_EVERY = 6;

    record Resources(
            Instant at,
            String daemon,
            int incarnation,
            long pid,
            double rssMiB,
            long fds,
            long threads,
            double heapUsedMiB,
            double heapAfterGcMiB,
            double directMiB,
            double nettyDirectMiB,
            double budgetMiB,
            int gcPauses,
            double gcPauseMaxMs,
            double gcPauseTotalMs,
            double safepointMaxMs,
            double stallMaxMs,
            double machineLoad) {}

    record Gc(String daemon, GcLog.Event event) {}

    record Lun(
            Instant at,
            String daemon,
            String lun,
            double iops,
            double readIops,
            double writeIops,
            double p99Ms,
            double p999Ms,
            LatencyHistogram interval) {}

    /** What the sampler remembers of a daemon between samples. */
    private static final class State {
        int incarnation;
        GcLog gcLog;
        Instant lastAt;
        double heapAfterGcMiB = Double.NaN;
        final Map<String, LatencyHistogram> histograms = new HashMap<>();
        final Map<String, double[]> commands = new HashMap<>();
    }

    private final List<SoakDaemon> daemons;
    private final Function<String, String> lunLabel;
    private final Path resourcesCsv;
    private final Path lunsCsv;
    private final Path scrapes;
    private final SoakRecorder recorder;
    private final Map<String, State> states = new HashMap<>();
    private final List<Resources> resources = new ArrayList<>();
    private final List<Lun> luns = new ArrayList<>();
    private final List<Gc> gcEvents = new ArrayList<>();

    /** {@code lunLabel}: a target IQN to the label the CSV and chart use. */
    Sampler(List<SoakDaemon> daemons, Function<String, String> lunLabel, Path out, SoakRecorder recorder)
            throws IOException {
        this.daemons = List.copyOf(daemons);
        this.lunLabel = lunLabel;
        this.recorder = recorder;
        this.resourcesCsv = out.resolve("resources.csv");
        this.lunsCsv = out.resolve("luns.csv");
        this.scrapes = Files.createDirectories(out.resolve("metrics"));
        Files.writeString(
                resourcesCsv,
                "t_s,daemon,start,pid,rss_mib,fds,threads,heap_used_mib,heap_after_gc_mib,"
                        + "direct_mib,netty_direct_mib,buffer_budget_mib,gc_pauses,gc_pause_max_ms,gc_pause_total_ms,"
                        + "safepoint_max_ms,allocation_stall_max_ms,load_1m\n");
        Files.writeString(lunsCsv, "t_s,daemon,lun,iops,read_iops,write_iops,p99_ms,p999_ms\n");
    }

    /** One sample of every running daemon; a daemon being restarted is skipped. */
    synchronized void sample() {
        for (SoakDaemon d : daemons) {
            try {
                sample(d);
            } catch (IOException | RuntimeException e) {
                // the daemon went down between the checks; the next sample finds it again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void sample(SoakDaemon d) throws IOException, InterruptedException {
        State s = states.computeIfAbsent(d.name(), n -> new State());
        int incarnation = d.incarnation();
        if (incarnation != s.incarnation) {
            if (s.gcLog != null) {
                s.gcLog.poll().forEach(e -> gcEvents.add(new Gc(d.name(), e))); // the end of the previous start's log
            }
            s.incarnation = incarnation;
            s.gcLog = new GcLog(d.gcLog(incarnation));
            s.histograms.clear();
            s.commands.clear();
            s.heapAfterGcMiB = Double.NaN;
            s.lastAt = null;
        }
        long pid = d.pid();
        if (pid < 0) {
            return;
        }
        PromScrape m = PromScrape.fetch(d.metricsPort());
        if (resources.stream().filter(r -> r.daemon().equals(d.name())).count() % SCRAPES_KEPT_EVERY == 0) {
            Files.writeString(
                    scrapes.resolve(
                            d.name() + "-" + recorder.seconds(Instant.now()).replace(".", "_") + ".prom"),
                    m.text()); // what the daemon said now and then, for a stall found later
        }
        Path proc = Path.of("/proc", Long.toString(pid));
        String status = Files.readString(proc.resolve("status"));
        long fds;
        try (Stream<Path> f = Files.list(proc.resolve("fd"))) {
            fds = f.count();
        }
        Instant at = Instant.now();
        List<GcLog.Event> fresh = s.gcLog.poll();
        fresh.forEach(e -> gcEvents.add(new Gc(d.name(), e)));
        int pauses = 0;
        double pauseMax = 0;
        double pauseTotal = 0;
        double safepointMax = 0;
        double stallMax = 0;
        for (GcLog.Event e : fresh) {
            switch (e.kind()) {
                case GC_PAUSE -> {
                    pauses++;
                    pauseMax = Math.max(pauseMax, e.value());
                    pauseTotal += e.value();
                    safepointMax = Math.max(safepointMax, e.value());
                }
                case OTHER_SAFEPOINT -> safepointMax = Math.max(safepointMax, e.value());
                case ALLOCATION_STALL -> stallMax = Math.max(stallMax, e.value());
                case HEAP_AFTER_GC -> s.heapAfterGcMiB = e.value();
            }
        }
        double mib = 1 << 20;
        Resources r = new Resources(
                at,
                d.name(),
                incarnation,
                pid,
                field(status, "VmRSS") / 1024.0,
                fds,
                field(status, "Threads"),
                m.sum("jvm_memory_used_bytes", x -> x.label("area").equals("heap")) / mib,
                s.heapAfterGcMiB,
                m.sum("jvm_buffer_memory_used_bytes", x -> x.label("id").equals("direct")) / mib,
                m.sum("netty_direct_memory_used_bytes") / mib,
                m.sum("iscsi_buffer_budget_used_bytes") / mib,
                pauses,
                pauseMax,
                pauseTotal,
                safepointMax,
                stallMax,
                loadAverage());
        resources.add(r);
        append(
                resourcesCsv,
                String.format(
                        "%s,%s,%d,%d,%.1f,%d,%d,%.1f,%s,%.1f,%.1f,%.1f,%d,%.3f,%.3f,%.3f,%.3f,%.2f",
                        recorder.seconds(at),
                        d.name(),
                        incarnation,
                        pid,
                        r.rssMiB(),
                        fds,
                        r.threads(),
                        r.heapUsedMiB(),
                        Double.isNaN(r.heapAfterGcMiB()) ? "" : String.format("%.1f", r.heapAfterGcMiB()),
                        r.directMiB(),
                        r.nettyDirectMiB(),
                        r.budgetMiB(),
                        pauses,
                        pauseMax,
                        pauseTotal,
                        safepointMax,
                        stallMax,
                        r.machineLoad()));
        sampleLuns(d, s, m, at);
        s.lastAt = at;
    }

    private void sampleLuns(SoakDaemon d, State s, PromScrape m, Instant at) {
        Map<String, double[]> commands = new LinkedHashMap<>(); // label -> {read, write, other}
        for (PromScrape.Sample x : m.named("iscsi_lun_commands_total")) {
            String label = lunLabel.apply(x.label("target")) + (x.label("lun").equals("0") ? "" : "/" + x.label("lun"));
            int op = switch (x.label("op")) {
                case "read" -> 0;
                case "write" -> 1;
                default -> 2;
            };
            commands.computeIfAbsent(label, k -> new double[3])[op] += x.value();
        }
        Map<String, Map<Double, Double>> buckets = new LinkedHashMap<>();
        for (PromScrape.Sample x : m.named("iscsi_lun_command_latency_seconds_bucket")) {
            String label = lunLabel.apply(x.label("target")) + (x.label("lun").equals("0") ? "" : "/" + x.label("lun"));
            double le = Double.parseDouble(x.label("le").replace("+Inf", "Infinity"));
            buckets.computeIfAbsent(label, k -> new TreeMap<>()).merge(le, x.value(), Double::sum);
        }
        double seconds = s.lastAt == null ? 0 : Duration.between(s.lastAt, at).toMillis() / 1000.0;
        for (Map.Entry<String, Map<Double, Double>> e : buckets.entrySet()) {
            double[] bounds = e.getValue().keySet().stream()
                    .mapToDouble(Double::doubleValue)
                    .toArray();
            double[] counts = e.getValue().values().stream()
                    .mapToDouble(Double::doubleValue)
                    .toArray();
            LatencyHistogram now = new LatencyHistogram(bounds, counts);
            LatencyHistogram before = s.histograms.put(e.getKey(), now);
            double[] c = commands.getOrDefault(e.getKey(), new double[3]);
            double[] cBefore = s.commands.put(e.getKey(), c);
            if (before == null || seconds <= 0) {
                continue;
            }
            LatencyHistogram interval = now.minus(before);
            double[] dc = new double[3];
            for (int i = 0; i < 3; i++) {
                dc[i] = cBefore == null || c[i] < cBefore[i] ? c[i] : c[i] - cBefore[i];
            }
            Lun l = new Lun(
                    at,
                    d.name(),
                    e.getKey(),
                    (dc[0] + dc[1] + dc[2]) / seconds,
                    dc[0] / seconds,
                    dc[1] / seconds,
                    interval.quantile(0.99) * 1000,
                    interval.quantile(0.999) * 1000,
                    interval);
            luns.add(l);
            append(
                    lunsCsv,
                    String.format(
                            "%s,%s,%s,%.1f,%.1f,%.1f,%s,%s",
                            recorder.seconds(at),
                            d.name(),
                            e.getKey(),
                            l.iops(),
                            l.readIops(),
                            l.writeIops(),
                            ms(l.p99Ms()),
                            ms(l.p999Ms())));
        }
    }

    /** The GC log's last lines of every daemon (called once the daemons have stopped). */
    synchronized void drainGcLogs() {
        for (Map.Entry<String, State> e : states.entrySet()) {
            try {
                if (e.getValue().gcLog != null) {
                    e.getValue().gcLog.poll().forEach(g -> gcEvents.add(new Gc(e.getKey(), g)));
                }
            } catch (IOException ignored) {
                // nothing more to read
            }
        }
    }

    synchronized List<Resources> resources() {
        return List.copyOf(resources);
    }

    synchronized List<Lun> luns() {
        return List.copyOf(luns);
    }

    synchronized List<Gc> gcEvents() {
        return List.copyOf(gcEvents);
    }

    /** The machine's 1-minute load average: the soak shares it, and latency means little without it. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "" : String.format("%.3f", v);
    }

    private static long field(String status, String name) {
        for (String line : status.split("\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).strip().split("\\s+")[0]);
            }
        }
        return -1;
    }

    private static void append(Path file, String line) {
        try {
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the in-memory series still has it
        }
    }
}
