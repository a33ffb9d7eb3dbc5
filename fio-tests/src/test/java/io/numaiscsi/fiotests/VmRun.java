package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One guest test in the qemu guest of {@code fio-tests/vm/} ({@code run-vm.sh}): the kernel
 * initiator in the guest, the target on 127.0.0.1:PORT on the host. While the guest runs, its
 * requests to the host ({@code out/host-request-N} in the 9p run dir, e.g. "restart-daemon") are
 * answered through {@link HostRequests} ({@code out/host-answer-N}, first line "ok" or "error: ...").
 *
 * @param exitCode the guest script's status (124 timeout, 125 no status: boot or harness failure)
 * @param passed   from the guest's {@code vmtest: N passed, N failed} line, -1 if it printed none
 * @param failed   the same, -1 if none
 */
public record VmRun(Path runDir, int exitCode, int passed, int failed, Duration elapsed) {

    /** The host's side of the guest's requests: returns the answer, "ok" or "error: why". */
    public interface HostRequests {
        String answer(String request) throws Exception;
    }

    static final Pattern VERDICT = Pattern.compile("vmtest: (\\d+) passed, (\\d+) failed");
    private static final Pattern FAILED_CHECK = Pattern.compile("\\] ((FAIL|ABORT)\\b.*)");
    private static final int SERIAL_TAIL_LINES = 60;
    private static Path image;
    private static Duration imageBuildTime;

    static Path vmDir() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("vm");
    }

    /**
     * The guest image directory: {@code build-image.sh} builds it on first use (minutes) or finds
     * it cached outside the repository. Fails the test with the build's output when it cannot be
     * built (no root, no Debian registry): never skips.
     */
    static synchronized Path image() throws IOException, InterruptedException {
        if (image != null) {
            return image;
        }
        Path log = DaemonProcess.logDir().resolve("vm-build-image.log");
        ToolRun build = ToolRun.run(
                log,
                Duration.ofMinutes(20),
                List.of("bash", vmDir().resolve("build-image.sh").toString()));
        imageBuildTime = build.elapsed();
        List<String> lines = build.output().lines().toList();
        String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
        if (build.exitCode() != 0 || build.timedOut() || !Files.isRegularFile(Path.of(last, "ready"))) {
            fail("the kernel-initiator guest image cannot be built, so the VM tests cannot run (they need root "
                    + "and the Debian package registry for debootstrap/apt):\n" + build.describe(25));
        }
        image = Path.of(last);
        return image;
    }

    static Duration imageBuildTime() {
        return imageBuildTime;
    }

    /**
     * Boots the guest with {@code guestScript} (a file under {@code vm/guest/}) against the target
     * on 127.0.0.1:{@code port}; {@code guestEnv} keys become {@code VM_KEY} in the guest.
     */
    public static VmRun run(
            String name, int port, String guestScript, Map<String, String> guestEnv, Duration limit, HostRequests host)
            throws IOException, InterruptedException {
        return run(name, port, guestScript, guestEnv, limit, host, runDir -> {});
    }

    /** What the host puts into the run dir (the guest's {@code /vmrun}) before the guest boots. */
    interface RunDirSetup {
        void prepare(Path runDir) throws IOException;
    }

    /** As above; {@code setup} fills the fresh run dir first (e.g. jars and a config for a process in the guest). */
    static VmRun run(
            String name,
            int port,
            String guestScript,
            Map<String, String> guestEnv,
            Duration limit,
            HostRequests host,
            RunDirSetup setup)
            throws IOException, InterruptedException {
        return run(name, port, guestScript, guestEnv, limit, host, setup, null);
    }

    /**
     * The guest booted with systemd as PID 1 ({@code VM_INIT=systemd}: {@code guest-systemd-run.sh} runs the script
     * once the boot is done), for tests of what runs as a systemd service; nothing listens for it on the host.
     */
    static VmRun runUnderSystemd(
            String name, String guestScript, Map<String, String> guestEnv, Duration limit, RunDirSetup setup)
            throws IOException, InterruptedException {
        return run(
                name,
                NO_HOST_PORT,
                guestScript,
                guestEnv,
                limit,
                request -> "error: no host requests",
                setup,
                "systemd");
    }

    /** A port nothing listens on: the guest's 10.0.2.100:3260 forward then leads nowhere. */
    private static final int NO_HOST_PORT = 1;

    private static VmRun run(
            String name,
            int port,
            String guestScript,
            Map<String, String> guestEnv,
            Duration limit,
            HostRequests host,
            RunDirSetup setup,
            String init)
            throws IOException, InterruptedException {
        Path img = image();
        Path runDir = DaemonProcess.logDir().resolve("vm-" + name);
        deleteTree(runDir);
        Files.createDirectories(runDir.resolve("out"));
        setup.prepare(runDir);
        List<String> cmd = List.of(
                "bash",
                vmDir().resolve("run-vm.sh").toString(),
                Integer.toString(port),
                runDir.toString(),
                vmDir().resolve("guest").resolve(guestScript).toString());
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(runDir.resolve("run-vm.log").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("VM_IMAGE", img.toString());
        pb.environment().put("VM_QUIET", "1");
        pb.environment().put("VM_TIMEOUT", Long.toString(limit.toSeconds()));
        if (init != null) {
            pb.environment().put("VM_INIT", init);
        }
        guestEnv.forEach((k, v) -> pb.environment().put("GUEST_" + k, v));
        long t0 = System.nanoTime();
        Process p = pb.start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        long deadline = t0 + limit.plusSeconds(30).toNanos();
        int next = 1;
        while (!p.waitFor(250, TimeUnit.MILLISECONDS)) {
            Path request = runDir.resolve("out").resolve("host-request-" + next);
            if (Files.isRegularFile(request)) {
                answer(runDir, next, Files.readString(request).strip(), host);
                next++;
            }
            if (System.nanoTime() > deadline) {
                p.destroy();
                p.waitFor(15, TimeUnit.SECONDS);
                p.destroyForcibly();
                break;
            }
        }
        p.waitFor(10, TimeUnit.SECONDS);
        int exit = p.isAlive() ? 124 : p.exitValue();
        Matcher m = VERDICT.matcher(serialLog(runDir));
        int passed = -1;
        int failed = -1;
        while (m.find()) {
            passed = Integer.parseInt(m.group(1));
            failed = Integer.parseInt(m.group(2));
        }
        return new VmRun(runDir, exit, passed, failed, Duration.ofNanos(System.nanoTime() - t0));
    }

    private static void answer(Path runDir, int n, String request, HostRequests host) throws IOException {
        String answer;
        try {
            answer = host.answer(request);
        } catch (Exception | AssertionError e) {
            answer = "error: " + e;
        }
        Path tmp = runDir.resolve("out").resolve(".host-answer-" + n);
        Files.writeString(tmp, answer + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, runDir.resolve("out").resolve("host-answer-" + n), StandardCopyOption.ATOMIC_MOVE);
    }

    public boolean succeeded() {
        return exitCode == 0 && passed > 0 && failed == 0;
    }

    public Path serialLog() {
        return runDir.resolve("serial.log");
    }

    public Path out(String file) {
        return runDir.resolve("out").resolve(file);
    }

    static String serialLog(Path runDir) throws IOException {
        Path log = runDir.resolve("serial.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
    }

    /** The guest's FAIL and ABORT lines, in order. */
    static List<String> failedChecks(String serial) {
        List<String> out = new ArrayList<>();
        for (String line : serial.lines().toList()) {
            Matcher m = FAILED_CHECK.matcher(line);
            if (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** How the run ended, the failed checks and the serial log's tail: for assertion messages. */
    public String describe() throws IOException {
        String serial = serialLog(runDir);
        return "guest exit " + exitCode + " after " + elapsed.toSeconds() + " s, " + passed + " passed, " + failed
                + " failed"
                + (exitCode == 124
                        ? " (TIMED OUT)"
                        : exitCode == 125 ? " (no status from the guest: boot or harness failure)" : "")
                + "\nfailed guest checks: " + failedChecks(serial)
                + "\n--- run-vm: " + ToolRun.tail(runDir.resolve("run-vm.log"), 5)
                + "\n--- guest serial log " + serialLog() + " (last " + SERIAL_TAIL_LINES + " lines):\n"
                + ToolRun.tail(serialLog(), SERIAL_TAIL_LINES) + "\n---";
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
