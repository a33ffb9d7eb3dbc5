package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs the fio matrix against every target, alternating targets within each repeat of a cell
 * (A B C A B C ...) so slow drifts of the machine hit every target alike, and charges each run the
 * target process's CPU time read from procfs just before fio starts and just after it exits.
 */
final class BenchRun {
    /** One fio run of the schedule. */
    record Step(Workload workload, Target target, int repeat) {}

    private final Path fio;
    private final Path outDir;
    private final int runtimeSeconds;
    private final int clockTicksPerSecond;
    private final PrintStream log;
    private volatile Process running;

    BenchRun(Path fio, Path outDir, int runtimeSeconds, int clockTicksPerSecond, PrintStream log) {
        this.fio = fio;
        this.outDir = outDir;
        this.runtimeSeconds = runtimeSeconds;
        this.clockTicksPerSecond = clockTicksPerSecond;
        this.log = log;
    }

    /** Cell by cell; within a cell repeat by repeat; within a repeat every target in the given order. */
    static List<Step> schedule(List<Workload> workloads, List<Target> targets, int repeats) {
        List<Step> steps = new ArrayList<>();
        for (Workload w : workloads) {
            for (int r = 1; r <= repeats; r++) {
                // each repeat starts with the next target: no target always runs right after the same one
                for (int i = 0; i < targets.size(); i++) {
                    steps.add(new Step(w, targets.get((r - 1 + i) % targets.size()), r));
                }
            }
        }
        return steps;
    }

    /** Stops the fio run in progress (from a shutdown hook). */
    void abort() {
        Process p = running;
        if (p != null) {
            stop(p);
        }
    }

    /** Runs every step; a failed fio run becomes a failed sample, a target process that died ends the run. */
    List<Sample> run(List<Step> steps) throws IOException, InterruptedException {
        List<Sample> samples = new ArrayList<>();
        int i = 0;
        for (Step s : steps) {
            i++;
            Sample sample = runOne(s.workload(), s.target(), s.repeat(), runtimeSeconds, "r" + s.repeat());
            samples.add(sample);
            FioResult f = sample.fio();
            log.printf(
                    Locale.ROOT,
                    "[%d/%d] %-18s %-12s r%d  %9.0f IOPS %8.1f MB/s  p99 %7.0f us  %7.2f us CPU/IO  %.2f cores  host %.0f%%%s%n",
                    i,
                    steps.size(),
                    s.workload().id(),
                    s.target().name(),
                    s.repeat(),
                    f.iops(),
                    f.bandwidthBytes() / 1e6,
                    f.p99Micros(),
                    sample.cpuMicrosPerIo(),
                    sample.targetCores(),
                    sample.hostBusy() * 100,
                    f.ok() ? "" : "  FAILED (see " + sample.fioJson().replace(".json", ".log") + ")");
        }
        return samples;
    }

    /** A short discarded run per target (JIT, page cache, TCP buffers), same workload for all. */
    void warmUp(List<Target> targets, Workload w, int seconds) throws IOException, InterruptedException {
        for (Target t : targets) {
            Sample s = runOne(w, t, 0, seconds, "warmup");
            log.printf(
                    Locale.ROOT,
                    "warm-up %-12s %s: %.0f IOPS%s%n",
                    t.name(),
                    w.id(),
                    s.fio().iops(),
                    s.fio().ok() ? "" : " FAILED");
        }
    }

    Sample runOne(Workload w, Target t, int repeat, int seconds, String tag) throws IOException, InterruptedException {
        if (!ProcStat.alive(t.pid())) {
            throw new IllegalStateException("target " + t.name() + " (pid " + t.pid() + ") is no longer running");
        }
        String base = w.id() + "." + t.name() + "." + tag;
        Path jobs = Files.createDirectories(outDir.resolve("fio"));
        Path jobFile = jobs.resolve(base + ".fio");
        Path json = jobs.resolve(base + ".json");
        Path fioLog = jobs.resolve(base + ".log");
        Files.writeString(jobFile, FioJobFile.render(w, t, seconds));
        ProcessBuilder pb = new ProcessBuilder(
                        fio.toString(), "--output-format=json", "--output=" + json, jobFile.toString())
                .redirectErrorStream(true)
                .redirectOutput(fioLog.toFile());

        long[] h0 = ProcStat.hostTicks();
        long c0 = ProcStat.processTicks(t.pid());
        long t0 = System.nanoTime();
        Process p = pb.start();
        running = p;
        boolean done = p.waitFor(seconds + 60L, TimeUnit.SECONDS);
        if (!done) {
            stop(p);
        }
        running = null;
        long t1 = System.nanoTime();
        long c1 = ProcStat.alive(t.pid()) ? ProcStat.processTicks(t.pid()) : c0;
        long[] h1 = ProcStat.hostTicks();

        FioResult result = FioResult.FAILED;
        if (done && p.exitValue() == 0 && Files.size(json) > 0) {
            try {
                result = FioResult.parse(BenchReport.mapper().readTree(jsonBody(Files.readString(json))));
            } catch (IllegalArgumentException | IOException e) {
                log.println("cannot read " + json + ": " + e.getMessage());
            }
        } else {
            log.println("fio " + (done ? "exit " + p.exitValue() : "timed out") + " for " + base + "; log tail:\n"
                    + tail(fioLog));
        }
        double hostBusy = h1[1] > h0[1] ? (double) (h1[0] - h0[0]) / (h1[1] - h0[1]) : Double.NaN;
        return new Sample(
                w.id(),
                t.name(),
                repeat,
                result,
                (double) (c1 - c0) / clockTicksPerSecond,
                (t1 - t0) / 1e9,
                hostBusy,
                outDir.relativize(json).toString());
    }

    /** fio may print warnings before the JSON object even with --output. */
    static String jsonBody(String text) {
        int brace = text.indexOf('{');
        return brace <= 0 ? text : text.substring(brace);
    }

    private static void stop(Process p) {
        p.destroy(); // SIGTERM: fio ends its jobs and logs out
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
