package io.numaiscsi.fiotests.soak;

import io.numaiscsi.fiotests.LauncherJvmOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How long the soak runs, how often it disturbs the daemons, and the bounds of its verdict. {@link #forDuration} gives
 * the schedule every run uses unless told otherwise: from 10 minutes on, a chaos event a minute and a restart every 10
 * minutes (the release run); shorter runs (the 5-minute form in {@code bin/run-tests}) squeeze the same events in, a
 * chaos event every 20 s and two restarts.
 */
public record SoakSettings(
        Duration duration,
        Duration chaosEvery,
        Duration restartEvery,
        Duration sampleEvery,
        Duration warmup,
        Duration settleAfterRestart,
        Duration latencyWindow,
        long seed,
        Path out,
        String fio,
        List<String> daemonJvmOptions,
        boolean rbd,
        Bounds bounds) {

    /** The verdict's numbers: see {@link SoakVerdict}. */
    public record Bounds(
            double maxGcPauseMs,
            double latencyFactor,
            double latencyFloorMs,
            double rssGrowthFactor,
            double rssGrowthSlackMiB,
            int fdGrowth,
            int threadGrowth) {

        /** The release run's bounds (an hour and more, on a machine not busy with other work). */
        public static final Bounds RELEASE = new Bounds(200, 3.0, 2.0, 1.25, 64, 32, 8);
        /**
         * The short forms' (the 5 minutes of bin/run-tests, on a shared 2-core machine whose load swings between 2 and
         * 30 within minutes, stretching every pause and tail): as generous as a stall or a leak still shows through.
         */
        public static final Bounds SHORT = new Bounds(1000, 10.0, 5.0, 1.25, 96, 32, 8);
    }

    public static SoakSettings forDuration(Duration duration, Path out, String fio) {
        boolean shortForm = duration.compareTo(Duration.ofMinutes(10)) < 0;
        Duration chaos = shortForm ? Duration.ofSeconds(20) : Duration.ofMinutes(1);
        Duration restart = shortForm ? max(duration.dividedBy(3), Duration.ofSeconds(60)) : Duration.ofMinutes(10);
        Duration warmup = min(Duration.ofMinutes(10), duration.dividedBy(5));
        Duration settle = min(Duration.ofMinutes(2), restart.dividedBy(4));
        Duration window = duration.compareTo(Duration.ofHours(2)) >= 0 ? Duration.ofHours(1) : duration.dividedBy(3);
        Bounds bounds = duration.compareTo(Duration.ofMinutes(30)) < 0 ? Bounds.SHORT : Bounds.RELEASE;
        return new SoakSettings(
                duration,
                chaos,
                restart,
                Duration.ofSeconds(10),
                warmup,
                settle,
                window,
                System.nanoTime(),
                out,
                fio,
                LauncherJvmOptions.DEFAULTS,
                true,
                bounds);
    }

    public SoakSettings withChaosEvery(Duration d) {
        return new SoakSettings(
                duration,
                d,
                restartEvery,
                sampleEvery,
                warmup,
                settleAfterRestart,
                latencyWindow,
                seed,
                out,
                fio,
                daemonJvmOptions,
                rbd,
                bounds);
    }

    public SoakSettings withRestartEvery(Duration d) {
        return new SoakSettings(
                duration,
                chaosEvery,
                d,
                sampleEvery,
                warmup,
                min(Duration.ofMinutes(2), d.dividedBy(4)),
                latencyWindow,
                seed,
                out,
                fio,
                daemonJvmOptions,
                rbd,
                bounds);
    }

    public SoakSettings withSeed(long s) {
        return new SoakSettings(
                duration,
                chaosEvery,
                restartEvery,
                sampleEvery,
                warmup,
                settleAfterRestart,
                latencyWindow,
                s,
                out,
                fio,
                daemonJvmOptions,
                rbd,
                bounds);
    }

    public SoakSettings withDaemonJvmOptions(List<String> options) {
        return new SoakSettings(
                duration,
                chaosEvery,
                restartEvery,
                sampleEvery,
                warmup,
                settleAfterRestart,
                latencyWindow,
                seed,
                out,
                fio,
                List.copyOf(options),
                rbd,
                bounds);
    }

    public SoakSettings withRbd(boolean on) {
        return new SoakSettings(
                duration,
                chaosEvery,
                restartEvery,
                sampleEvery,
                warmup,
                settleAfterRestart,
                latencyWindow,
                seed,
                out,
                fio,
                daemonJvmOptions,
                on,
                bounds);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** One line for the report. */
    public String describe() {
        return String.format(
                "duration %s, a chaos event every %s, a daemon restart every %s, samples every %s, "
                        + "warm-up %s, %s excluded after each restart, latency windows of %s, seed %d, daemon JVM options %s; "
                        + "bounds: collector pauses <= %.0f ms, tail (p99.9, or the highest quantile with 4 full queues "
                        + "beyond it) of the last window <= %.1f x max(first, %.1f ms), "
                        + "RSS <= first x %.2f + %.0f MiB, fds <= first + %d, threads <= first + %d",
                human(duration),
                human(chaosEvery),
                human(restartEvery),
                human(sampleEvery),
                human(warmup),
                human(settleAfterRestart),
                human(latencyWindow),
                seed,
                daemonJvmOptions.isEmpty() ? "(none: the JVM's defaults)" : String.join(" ", daemonJvmOptions),
                bounds.maxGcPauseMs(),
                bounds.latencyFactor(),
                bounds.latencyFloorMs(),
                bounds.rssGrowthFactor(),
                bounds.rssGrowthSlackMiB(),
                bounds.fdGrowth(),
                bounds.threadGrowth());
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        if (s % 3600 == 0) {
            return s / 3600 + " h";
        }
        if (s % 60 == 0) {
            return s / 60 + " min";
        }
        return s + " s";
    }
}
