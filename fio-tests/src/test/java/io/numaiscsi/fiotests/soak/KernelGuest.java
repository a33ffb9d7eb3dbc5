package io.numaiscsi.fiotests.soak;

import io.numaiscsi.fiotests.VmRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The Linux kernel initiator during the first part of the soak: the project's qemu guest logs into
 * {@link SoakConfig#KERNEL_TARGET} on the write-through daemon, puts ext4 on it and runs fio verify on files in it round
 * after round ({@code vm/guest/soak-kernel.sh}) while the chaos and the restarts go on; at the end the file system's
 * tree of files still matches its sums and fsck finds nothing. Runs on a thread of its own; {@link #outcome()} is what
 * the verdict checks.
 */
final class KernelGuest implements Runnable {
    /** The time the guest needs besides its rounds: boot, login, mkfs, fsck, power-off (TCG). */
    static final Duration OVERHEAD_LIMIT = Duration.ofMinutes(10);

    /** How the guest ended: its checks, and its rounds from {@code out/rounds.txt}. */
    record Outcome(Duration ran, int passed, int failed, int rounds, int roundsFailed, String detail) {
        boolean pass() {
            return passed > 0 && failed == 0 && rounds > 0 && roundsFailed == 0;
        }

        String describe() {
            return passed + " guest checks passed, " + failed + " failed; " + rounds + " fio verify rounds on ext4, "
                    + roundsFailed + " failed; " + SoakSettings.human(ran);
        }
    }

    private final SoakDaemon daemon;
    private final Duration length;
    private volatile Outcome outcome;

    KernelGuest(SoakDaemon daemon, Duration length) {
        this.daemon = daemon;
        this.length = length;
    }

    /**
     * How long the kernel initiator runs in a soak of {@code duration}: {@code it.soak.kernelMinutes} when given, else
     * the first hour of runs of an hour and more and half of runs from 30 minutes on; none in shorter ones (the
     * 5-minute form in every test run leaves the guest to the guest tests).
     */
    static Duration lengthFor(Duration duration) {
        String minutes = System.getProperty("it.soak.kernelMinutes", "");
        if (!minutes.isBlank()) {
            return Duration.ofMinutes(Long.parseLong(minutes.strip()));
        }
        if (duration.compareTo(Duration.ofMinutes(30)) < 0) {
            return Duration.ZERO;
        }
        Duration half = duration.dividedBy(2);
        return half.compareTo(Duration.ofHours(1)) < 0 ? half : Duration.ofHours(1);
    }

    @Override
    public void run() {
        long t0 = System.nanoTime();
        try {
            VmRun run = VmRun.run(
                    "soak-kernel",
                    daemon.port(),
                    "soak-kernel.sh",
                    Map.of("IQN", SoakConfig.KERNEL_TARGET, "SECONDS", Long.toString(length.toSeconds())),
                    length.plus(OVERHEAD_LIMIT),
                    request -> "error: the soak's guest asks nothing of the host");
            int[] rounds = rounds(run.out("rounds.txt"));
            outcome = new Outcome(
                    run.elapsed(),
                    run.passed(),
                    run.succeeded() ? run.failed() : Math.max(1, run.failed()),
                    rounds[0],
                    rounds[1],
                    run.succeeded() ? "serial log " + run.serialLog() : run.describe());
        } catch (Exception e) {
            outcome = new Outcome(
                    Duration.ofNanos(System.nanoTime() - t0), 0, 1, 0, 0, "the guest did not run: " + e.getMessage());
        }
    }

    /** Null until the guest has ended. */
    Outcome outcome() {
        return outcome;
    }

    /** {rounds, failed rounds} from the guest's {@code rounds.txt} ("ROUNDS FAILED SUMS_FAILED"), zeros without it. */
    private static int[] rounds(Path file) {
        try {
            String[] words = Files.readString(file).strip().split("\\s+");
            return new int[] {Integer.parseInt(words[0]), Integer.parseInt(words[1])};
        } catch (Exception e) {
            return new int[] {0, 0};
        }
    }
}
