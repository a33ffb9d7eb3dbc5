package io.numaiscsi.fiotests.soak;

import io.numaiscsi.fiotests.DaemonLogLines;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * The soak's verdict in numbers, each check with what it measured and its bound:
 * <ul>
 *   <li>no fio verify error, in any round or in the {@code verify_only} after a restart;</li>
 *   <li>no fio round that failed without a cause the harness made (its kill, a restart of its daemon);</li>
 *   <li>every LUN verified data in every third of the run, and after each restart data written before it was
 *       verified again;</li>
 *   <li>every chaos event's own check passed, and every SIGTERM ended with exit code 0;</li>
 *   <li>no ERROR line in a daemon log that the chaos does not explain;</li>
 *   <li>resident memory, descriptors and threads of each daemon: the median of the last third of the steady samples
 *       (after the warm-up, and apart from the minutes after each restart) within a band above the first third's
 *       (a trend, not a ceiling);</li>
 *   <li>no collector pause (a safepoint of the collector, reaching it included) and no allocation stall above the
 *       bound;</li>
 *   <li>per LUN, the latency tail of the last window within a factor of the first window's (the daemon's own
 *       histogram: from a command's arrival to its completion): p99.9, or in a window too short for it the highest
 *       quantile beyond which lie at least {@link #TAIL_QUEUES} full queues of commands ({@link #tailQuantile});</li>
 *   <li>when the kernel initiator ran ({@link KernelGuest}): every guest check passed, every fio round on its ext4
 *       verified, and the file system's tree and fsck were clean at the end.</li>
 * </ul>
 */
final class SoakVerdict {
    /** ERROR lines the chaos is expected to cause: none so far. A line here must name the event that explains it. */
    static final List<Pattern> EXPECTED_ERRORS = List.of();

    static final Duration STALL = Duration.ofSeconds(60);

    /**
     * One stall of a store (a disk's flush, a moment of the host) delays every command then in flight: up to a full
     * queue ({@link FioRound#DEPTHS}' largest) at once. A tail quantile says something about the target only when
     * more than a few such stalls lie beyond it; otherwise one stall of the device decides it.
     */
    static final int TAIL_QUEUES = 4;

    /** The highest quantile judged in a window of {@code commands}: p99.9 at most, p90 at least. */
    static double tailQuantile(long commands) {
        return Math.min(0.999, 1 - (double) TAIL_QUEUES * MAX_DEPTH / commands);
    }

    private static final int MAX_DEPTH =
            FioRound.DEPTHS.stream().mapToInt(Integer::intValue).max().orElseThrow();

    static final double LOWEST_TAIL = 0.9;

    record Check(String name, boolean pass, String measured, String bound) {}

    private final SoakSettings settings;
    private final SoakRecorder recorder;
    private final Sampler sampler;
    private final List<SoakDaemon> daemons;
    private final List<SoakLun> luns;
    private final Instant t0;
    private final Instant end;
    private final Supplier<KernelGuest.Outcome> kernel;
    private final List<Check> checks = new ArrayList<>();

    SoakVerdict(
            SoakSettings settings,
            SoakRecorder recorder,
            Sampler sampler,
            List<SoakDaemon> daemons,
            List<SoakLun> luns,
            Instant end,
            Supplier<KernelGuest.Outcome> kernel) {
        this.settings = settings;
        this.recorder = recorder;
        this.sampler = sampler;
        this.daemons = List.copyOf(daemons);
        this.luns = List.copyOf(luns);
        this.t0 = recorder.t0();
        this.end = end;
        this.kernel = kernel;
    }

    List<Check> checks() throws IOException {
        if (checks.isEmpty()) {
            verifyErrors();
            unexplainedFailures();
            progress();
            stalls();
            verifiedAfterRestarts();
            chaosChecks();
            cleanStops();
            daemonErrors();
            for (SoakDaemon d : daemons) {
                trend(
                        d.name(),
                        "resident memory (MiB)",
                        Sampler.Resources::rssMiB,
                        first -> first * settings.bounds().rssGrowthFactor()
                                + settings.bounds().rssGrowthSlackMiB(),
                        String.format(
                                "x %.2f + %.0f MiB",
                                settings.bounds().rssGrowthFactor(),
                                settings.bounds().rssGrowthSlackMiB()));
                trend(
                        d.name(),
                        "file descriptors",
                        r -> r.fds(),
                        first -> first + settings.bounds().fdGrowth(),
                        "+ " + settings.bounds().fdGrowth());
                trend(
                        d.name(),
                        "threads",
                        r -> r.threads(),
                        first -> first + settings.bounds().threadGrowth(),
                        "+ " + settings.bounds().threadGrowth());
            }
            gcPauses();
            latency();
            kernelInitiator();
        }
        return List.copyOf(checks);
    }

    /** The kernel initiator's run, when it had one. */
    private void kernelInitiator() {
        if (kernel == null) {
            return;
        }
        KernelGuest.Outcome o = kernel.get();
        checks.add(
                o == null
                        ? new Check(
                                "kernel initiator (qemu guest, ext4)",
                                false,
                                "still running when the load ended",
                                "ended")
                        : new Check(
                                "kernel initiator (qemu guest, ext4)",
                                o.pass(),
                                o.describe() + (o.pass() ? "" : "\n" + o.detail()),
                                "0 failed"));
    }

    boolean pass() throws IOException {
        return checks().stream().allMatch(Check::pass);
    }

    private void verifyErrors() {
        List<SoakRecorder.Round> rounds = recorder.rounds();
        long bad = rounds.stream()
                .filter(r -> r.result().outcome() == FioRound.Outcome.VERIFY_ERROR)
                .count();
        long verified = rounds.stream()
                .filter(r -> r.result().outcome() == FioRound.Outcome.OK
                        && r.result().job().type() != FioRound.Type.READ)
                .count();
        long bytes = rounds.stream()
                .filter(r -> r.result().job().type() != FioRound.Type.READ
                        && r.result().outcome() == FioRound.Outcome.OK)
                .mapToLong(r -> r.result().bytesRead())
                .sum();
        String first = rounds.stream()
                .filter(r -> r.result().outcome() == FioRound.Outcome.VERIFY_ERROR)
                .findFirst()
                .map(r -> "; first: " + r.lun().label() + " " + r.result().job().describe() + ": "
                        + r.result().detail())
                .orElse("");
        checks.add(new Check(
                "verify errors",
                bad == 0,
                bad + " rounds with a verify error, " + verified + " rounds verified (" + (bytes >> 20)
                        + " MiB read back and checked)" + first,
                "0"));
    }

    private void unexplainedFailures() {
        Map<String, Integer> byOutcome = new LinkedHashMap<>();
        List<String> unexplained = new ArrayList<>();
        for (SoakRecorder.Round r : recorder.rounds()) {
            FioRound.Outcome o = r.result().outcome();
            if (o.failed()) {
                byOutcome.merge(o.name().toLowerCase(), 1, Integer::sum);
                if (o != FioRound.Outcome.VERIFY_ERROR && !recorder.explained(r)) {
                    unexplained.add(r.lun().label() + " at "
                            + recorder.seconds(r.result().start()) + " s: "
                            + r.result().outcome() + " " + r.result().detail());
                }
            }
        }
        checks.add(new Check(
                "fio rounds failed without a cause",
                unexplained.isEmpty(),
                unexplained.size()
                        + " (failed rounds by outcome: " + byOutcome + ")"
                        + (unexplained.isEmpty() ? "" : "; first: " + unexplained.get(0)),
                "0 (a round killed by the harness or cut by a restart of its " + "daemon is explained)"));
    }

    private void progress() {
        Duration third = Duration.between(t0, end).dividedBy(3);
        List<String> idle = new ArrayList<>();
        for (SoakLun lun : luns) {
            for (int k = 0; k < 3; k++) {
                Instant from = t0.plus(third.multipliedBy(k));
                Instant to = from.plus(third);
                boolean any = recorder.rounds().stream()
                        .anyMatch(r -> r.lun().equals(lun)
                                && r.result().outcome() == FioRound.Outcome.OK
                                && !r.result().end().isBefore(from)
                                && r.result().end().isBefore(to.plusSeconds(1)));
                if (!any) {
                    idle.add(lun.label() + " (third " + (k + 1) + ")");
                }
            }
        }
        checks.add(new Check(
                "every LUN verified (null: read) data in every third of the run",
                idle.isEmpty(),
                idle.isEmpty() ? "yes" : "none in " + idle,
                "every LUN, every third"));
    }

    /**
     * A LUN under fio that completes no command for {@link #STALL} (outside its daemon's restarts) has stopped serving,
     * even if a restart later frees it.
     */
    private void stalls() {
        List<String> stalls = new ArrayList<>();
        for (SoakLun lun : luns) {
            List<SoakRecorder.Restart> restarts = recorder.restarts().stream()
                    .filter(r -> r.daemon().equals(lun.daemon()))
                    .toList();
            Instant lastServed = t0;
            Instant worstFrom = null;
            Duration worst = Duration.ZERO;
            for (Sampler.Lun l : sampler.luns()) {
                if (!l.lun().equals(lun.label())) {
                    continue;
                }
                boolean restarting = restarts.stream()
                        .anyMatch(r -> !l.at().isBefore(r.start())
                                && l.at().isBefore(r.end().plus(settings.settleAfterRestart())));
                if (l.iops() >= 0.1 || restarting) {
                    lastServed = l.at();
                    continue;
                }
                Duration idle = Duration.between(lastServed, l.at());
                if (idle.compareTo(worst) > 0) {
                    worst = idle;
                    worstFrom = lastServed;
                }
            }
            if (worst.compareTo(STALL) >= 0) {
                stalls.add(lun.label() + ": nothing completed for " + worst.toSeconds() + " s from "
                        + recorder.seconds(worstFrom) + " s");
            }
        }
        checks.add(new Check(
                "LUNs that stopped serving under load",
                stalls.isEmpty(),
                stalls.isEmpty() ? "none" : String.join("; ", stalls),
                "no LUN without a completed command for " + STALL.toSeconds() + " s"));
    }

    private void verifiedAfterRestarts() {
        List<String> missing = new ArrayList<>();
        int restarts = 0;
        for (SoakRecorder.Restart s : recorder.restarts()) {
            restarts++;
            boolean verified = recorder.rounds().stream()
                    .anyMatch(r -> r.lun().daemon().equals(s.daemon())
                            && r.result().job().type() == FioRound.Type.VERIFY_ONLY
                            && r.result().outcome() == FioRound.Outcome.OK
                            && r.result().start().isAfter(s.end()));
            if (!verified) {
                missing.add(s.daemon() + " at " + recorder.seconds(s.start()) + " s");
            }
        }
        long verifyOnly = recorder.rounds().stream()
                .filter(r -> r.result().job().type() == FioRound.Type.VERIFY_ONLY
                        && r.result().outcome() == FioRound.Outcome.OK)
                .count();
        checks.add(new Check(
                "data written before each restart verified after it",
                missing.isEmpty(),
                restarts + " restarts, " + verifyOnly + " verify_only rounds passed"
                        + (missing.isEmpty() ? "" : "; none after " + missing),
                "every restart"));
    }

    private void chaosChecks() {
        List<SoakRecorder.Chaos> events = recorder.chaosEvents();
        List<SoakRecorder.Chaos> failed = events.stream().filter(c -> !c.ok()).toList();
        Map<String, Integer> kinds = new LinkedHashMap<>();
        events.forEach(c -> kinds.merge(c.kind(), 1, Integer::sum));
        checks.add(new Check(
                "chaos events that did not behave",
                failed.isEmpty(),
                failed.size() + " of "
                        + events.size() + " " + kinds
                        + (failed.isEmpty()
                                ? ""
                                : "; first: " + failed.get(0).kind() + ": "
                                        + failed.get(0).detail()),
                "0"));
    }

    private void cleanStops() {
        List<String> bad = new ArrayList<>();
        int stops = 0;
        for (SoakDaemon d : daemons) {
            for (int code : d.cleanExitCodes()) {
                stops++;
                if (code != 0) {
                    bad.add(d.name() + ": " + code);
                }
            }
        }
        checks.add(new Check(
                "SIGTERM exit codes",
                bad.isEmpty(),
                stops + " stops" + (bad.isEmpty() ? ", all 0" : ", not 0: " + bad),
                "0"));
    }

    private void daemonErrors() throws IOException {
        List<String> unexpected = new ArrayList<>();
        int expected = 0;
        for (SoakDaemon d : daemons) {
            for (String line : Files.readAllLines(d.log(), StandardCharsets.ISO_8859_1)) {
                if (!DaemonLogLines.isError(line)) {
                    continue;
                }
                if (EXPECTED_ERRORS.stream().anyMatch(p -> p.matcher(line).find())) {
                    expected++;
                } else {
                    unexpected.add(d.name() + ": " + line);
                }
            }
        }
        checks.add(new Check(
                "daemon ERROR lines not caused by the chaos",
                unexpected.isEmpty(),
                unexpected.size()
                        + (expected > 0 ? " (and " + expected + " expected)" : "")
                        + (unexpected.isEmpty() ? "" : "; first: " + unexpected.get(0)),
                "0"));
    }

    /** The samples of {@code daemon} after the warm-up and outside the minutes after each of its restarts. */
    List<Sampler.Resources> steady(String daemon) {
        Instant from = t0.plus(settings.warmup());
        List<SoakRecorder.Restart> restarts = recorder.restarts().stream()
                .filter(r -> r.daemon().equals(daemon))
                .toList();
        return sampler.resources().stream()
                .filter(r -> r.daemon().equals(daemon) && !r.at().isBefore(from))
                .filter(r -> restarts.stream()
                        .noneMatch(s -> !r.at().isBefore(s.start())
                                && r.at().isBefore(s.end().plus(settings.settleAfterRestart()))))
                .toList();
    }

    private void trend(
            String daemon,
            String what,
            ToDoubleFunction<Sampler.Resources> value,
            DoubleUnaryOperator bound,
            String boundText) {
        List<Sampler.Resources> steady = steady(daemon);
        String name = daemon + " " + what + ": last third of the steady samples against the first";
        if (steady.size() < 6) {
            checks.add(new Check(name, false, "only " + steady.size() + " steady samples", "at least 6"));
            return;
        }
        Instant from = steady.get(0).at();
        Duration third =
                Duration.between(from, steady.get(steady.size() - 1).at()).dividedBy(3);
        double first = median(steady.stream()
                .filter(r -> r.at().isBefore(from.plus(third)))
                .mapToDouble(value)
                .toArray());
        double last = median(steady.stream()
                .filter(r -> !r.at().isBefore(from.plus(third.multipliedBy(2))))
                .mapToDouble(value)
                .toArray());
        double max = steady.stream().mapToDouble(value).max().orElse(Double.NaN);
        double limit = bound.applyAsDouble(first);
        checks.add(new Check(
                name,
                last <= limit,
                String.format("median %.1f -> %.1f (max %.1f, %d samples)", first, last, max, steady.size()),
                String.format("<= first %s = %.1f", boundText, limit)));
    }

    private void gcPauses() {
        for (SoakDaemon d : daemons) {
            List<Sampler.Gc> events = sampler.gcEvents().stream()
                    .filter(g -> g.daemon().equals(d.name()))
                    .toList();
            GcLog.Event worst = events.stream()
                    .map(Sampler.Gc::event)
                    .filter(e -> e.kind() == GcLog.Kind.GC_PAUSE || e.kind() == GcLog.Kind.ALLOCATION_STALL)
                    .max(Comparator.comparingDouble(GcLog.Event::value))
                    .orElse(null);
            long pauses = events.stream()
                    .filter(g -> g.event().kind() == GcLog.Kind.GC_PAUSE)
                    .count();
            double total = events.stream()
                    .filter(g -> g.event().kind() == GcLog.Kind.GC_PAUSE)
                    .mapToDouble(g -> g.event().value())
                    .sum();
            double[] all = events.stream()
                    .filter(g -> g.event().kind() == GcLog.Kind.GC_PAUSE)
                    .mapToDouble(g -> g.event().value())
                    .sorted()
                    .toArray();
            double maxSafepoint = events.stream()
                    .filter(g -> g.event().kind() == GcLog.Kind.OTHER_SAFEPOINT)
                    .mapToDouble(g -> g.event().value())
                    .max()
                    .orElse(0);
            double worstMs = worst == null ? 0 : worst.value();
            checks.add(new Check(
                    d.name() + " longest collector pause or allocation stall",
                    worstMs <= settings.bounds().maxGcPauseMs(),
                    String.format(
                            "%.2f ms%s; %d collector pauses, %.0f ms in all, median %.2f ms; longest other "
                                    + "safepoint %.2f ms",
                            worstMs,
                            worst == null ? "" : " (" + worst.what() + " at " + recorder.seconds(worst.at()) + " s)",
                            pauses,
                            total,
                            all.length == 0 ? 0 : all[all.length / 2],
                            maxSafepoint),
                    String.format("<= %.0f ms", settings.bounds().maxGcPauseMs())));
        }
    }

    private void latency() {
        Instant firstEnd = t0.plus(settings.latencyWindow());
        Instant lastStart = end.minus(settings.latencyWindow());
        Map<String, LatencyHistogram[]> byLun = new LinkedHashMap<>();
        for (Sampler.Lun l : sampler.luns()) {
            LatencyHistogram[] w = byLun.computeIfAbsent(
                    l.lun(), k -> new LatencyHistogram[] {LatencyHistogram.EMPTY, LatencyHistogram.EMPTY});
            if (l.at().isBefore(firstEnd)) {
                w[0] = w[0].plus(l.interval());
            }
            if (!l.at().isBefore(lastStart)) {
                w[1] = w[1].plus(l.interval());
            }
        }
        double factor = settings.bounds().latencyFactor();
        double floor = settings.bounds().latencyFloorMs();
        for (SoakLun lun : luns) {
            LatencyHistogram[] w = byLun.get(lun.label());
            long commands = w == null ? 0 : (long) Math.min(w[0].count(), w[1].count());
            double q = commands == 0 ? 0 : tailQuantile(commands);
            String name = lun.label() + " " + quantileName(Math.max(q, LOWEST_TAIL)) + " latency, last "
                    + SoakSettings.human(settings.latencyWindow()) + " against the first";
            if (q < LOWEST_TAIL) {
                checks.add(new Check(
                        name,
                        false,
                        "too few commands: " + (w == null ? 0 : (long) w[0].count()) + " / "
                                + (w == null ? 0 : (long) w[1].count()),
                        String.format(
                                "%d in each window (%d full queues beyond p%s)",
                                (long) Math.ceil(TAIL_QUEUES * MAX_DEPTH / (1 - LOWEST_TAIL)),
                                TAIL_QUEUES,
                                percent(LOWEST_TAIL))));
                continue;
            }
            double first = w[0].quantile(q) * 1000;
            double last = w[1].quantile(q) * 1000;
            double limit = factor * Math.max(first, floor);
            checks.add(new Check(
                    name,
                    last <= limit,
                    String.format(
                            "%.2f ms -> %.2f ms (p99 %.2f -> %.2f ms, p99.9 %.2f -> %.2f ms; %d / %d "
                                    + "commands; machine load average %.1f -> %.1f)",
                            first,
                            last,
                            w[0].quantile(0.99) * 1000,
                            w[1].quantile(0.99) * 1000,
                            w[0].quantile(0.999) * 1000,
                            w[1].quantile(0.999) * 1000,
                            (long) w[0].count(),
                            (long) w[1].count(),
                            load(t0, firstEnd),
                            load(lastStart, end)),
                    String.format("<= %.1f x max(first, %.1f ms) = %.2f ms", factor, floor, limit)));
        }
    }

    static String quantileName(double q) {
        return "p" + percent(q);
    }

    private static String percent(double q) {
        // one decimal, cut (not rounded) so the name never claims a higher quantile than the one judged
        double tenths = Math.floor(q * 1000 + 1e-9) / 10;
        return tenths == Math.rint(tenths) ? String.valueOf((long) tenths) : String.valueOf(tenths);
    }

    /** The machine's mean 1-minute load average over the samples in [from, to). */
    private double load(Instant from, Instant to) {
        return sampler.resources().stream()
                .filter(r -> !r.at().isBefore(from) && r.at().isBefore(to))
                .mapToDouble(Sampler.Resources::machineLoad)
                .filter(v -> !Double.isNaN(v))
                .average()
                .orElse(Double.NaN);
    }

    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The verdict as text: one line per check, PASS or FAIL first. */
    String text() throws IOException {
        StringBuilder s = new StringBuilder();
        for (Check c : checks()) {
            s.append(c.pass() ? "PASS  " : "FAIL  ")
                    .append(c.name())
                    .append(": ")
                    .append(c.measured())
                    .append("  [bound: ")
                    .append(c.bound())
                    .append("]\n");
        }
        s.append(pass() ? "VERDICT: PASS\n" : "VERDICT: FAIL\n");
        return s.toString();
    }
}
