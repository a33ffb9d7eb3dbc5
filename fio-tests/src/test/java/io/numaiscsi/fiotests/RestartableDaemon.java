package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The daemon as a process that can be stopped and started again on the same portal with the same
 * data dir (so the LUN's contents must survive), for the durability step of the kernel-initiator
 * tests. Same config, log and timeouts as {@link DaemonProcess}, whose {@code stop()} deletes the
 * data dir; here the data dir goes only at {@link #close()}. Every start appends to one log.
 */
final class RestartableDaemon implements AutoCloseable {

    private final IscsiTarget target;
    private final Path log;
    private final Path dataDir;
    private final List<String> command;
    private Process process;
    private int restarts;

    private RestartableDaemon(IscsiTarget target, Path log, Path dataDir, List<String> command) {
        this.target = target;
        this.log = log;
        this.dataDir = dataDir;
        this.command = command;
    }

    /** Writes the config ({@link DaemonProcess#config}) for a free loopback port and starts the daemon. */
    static RestartableDaemon start(String testName, long lunBytes) throws IOException, InterruptedException {
        return start(testName, DaemonProcess.Setup.fileLun(lunBytes));
    }

    /** As {@link #start(String, long)} with the config and daemon arguments of {@code setup}. */
    static RestartableDaemon start(String testName, DaemonProcess.Setup setup)
            throws IOException, InterruptedException {
        Path logDir = DaemonProcess.logDir();
        Files.createDirectories(logDir);
        int port = DaemonProcess.freeLoopbackPort();
        Path dataDir = ItDataDirs.newDir(testName);
        Path config = dataDir.resolve("target.yaml");
        Files.writeString(config, DaemonProcess.config(dataDir, port, setup), StandardCharsets.UTF_8);
        List<String> cmd = new ArrayList<>(DaemonProcess.command(testName, List.of("--config", config.toString())));
        cmd.addAll(setup.daemonArgs());
        Path log = logDir.resolve(testName + ".log");
        Files.writeString(
                log,
                "$ " + String.join(" ", cmd) + "\n--- " + config + "\n" + Files.readString(config) + "---\n",
                StandardCharsets.UTF_8);
        RestartableDaemon d = new RestartableDaemon(
                new IscsiTarget("127.0.0.1", port, IscsiTarget.DEFAULT_IQN, 0), log, dataDir, List.copyOf(cmd));
        d.launch();
        return d;
    }

    private void launch() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        process = p;
        long deadline = System.nanoTime() + DaemonProcess.READY_TIMEOUT.toNanos();
        while (!target.portalAccepts()) {
            if (!p.isAlive()) {
                fail("daemon exited with code " + p.exitValue() + " before its portal " + portal()
                        + " accepted connections\n" + logTail());
            }
            if (System.nanoTime() > deadline) {
                stopProcess();
                fail("daemon portal " + portal() + " not ready within " + DaemonProcess.READY_TIMEOUT.toSeconds()
                        + " s\n" + logTail());
            }
            Thread.sleep(100);
        }
    }

    /**
     * SIGTERM, then the same command again on the same port and data dir, ready when the portal
     * accepts TCP. Returns the exit code of the stopped daemon (0 = clean shutdown).
     */
    int restart() throws IOException, InterruptedException {
        int exit = stopProcess();
        restarts++;
        appendToLog("--- harness: restart " + restarts + " (same port and data dir)\n");
        launch();
        return exit;
    }

    /**
     * SIGKILL (no shutdown hook, no flush: whatever the daemon held only in memory is gone), then the
     * same command again on the same port and data dir. Returns the killed process's exit code (137).
     */
    int killAndRestart() throws IOException, InterruptedException {
        if (process != null) {
            Process p = process;
            process = null;
            appendToLog("--- harness: SIGKILL pid " + p.pid() + "\n");
            p.destroyForcibly();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                fail("daemon pid " + p.pid() + " still alive 10 s after SIGKILL");
            }
            appendToLog("--- harness: daemon killed, exit code " + p.exitValue() + "\n");
            restarts++;
            appendToLog("--- harness: restart " + restarts + " after SIGKILL (same port and data dir)\n");
            launch();
            return p.exitValue();
        }
        fail("killAndRestart: the daemon is not running");
        return -1;
    }

    /** SIGKILL, and the daemon stays down until {@link #startAgain()}. Returns the killed process's exit code (137). */
    int kill() throws InterruptedException {
        if (process == null) {
            fail("kill: the daemon is not running");
        }
        Process p = process;
        process = null;
        appendToLog("--- harness: SIGKILL pid " + p.pid() + " (stays down)\n");
        p.destroyForcibly();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            fail("daemon pid " + p.pid() + " still alive 10 s after SIGKILL");
        }
        appendToLog("--- harness: daemon killed, exit code " + p.exitValue() + "\n");
        return p.exitValue();
    }

    /** After {@link #kill()}: the same command again on the same port and data dir, ready when the portal accepts. */
    void startAgain() throws IOException, InterruptedException {
        if (process != null) {
            fail("startAgain: the daemon is running");
        }
        restarts++;
        appendToLog("--- harness: restart " + restarts + " (same port and data dir)\n");
        launch();
    }

    Path dataDir() {
        return dataDir;
    }

    /** The running daemon's process id (for a signal), or -1 when it is stopped. */
    long pid() {
        return process == null ? -1 : process.pid();
    }

    private int stopProcess() throws InterruptedException {
        if (process == null) {
            return 0;
        }
        Process p = process;
        process = null;
        p.destroy();
        if (!p.waitFor(DaemonProcess.STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            appendToLog("--- harness: no exit " + DaemonProcess.STOP_TIMEOUT.toSeconds()
                    + " s after SIGTERM, thread dump, SIGKILL\n");
            DaemonProcess.dumpThreads(p);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        int exit = p.exitValue();
        appendToLog("--- harness: daemon exited with code " + exit + "\n");
        return exit;
    }

    private String portal() {
        return target.host() + ":" + target.port();
    }

    IscsiTarget target() {
        return target;
    }

    Path log() {
        return log;
    }

    int restarts() {
        return restarts;
    }

    /** Fails (with the log tail) unless the daemon runs and its portal accepts TCP. */
    void assertAlive() {
        if (process == null || !process.isAlive()) {
            fail("daemon not running" + (process == null ? "" : ", exit code " + process.exitValue()) + "\n"
                    + logTail());
        }
        if (!target.portalAccepts()) {
            fail("portal " + portal() + " refuses connections\n" + logTail());
        }
    }

    String logTail() {
        return "--- daemon log " + log + " (last 40 lines):\n" + ToolRun.tail(log, 40) + "\n---";
    }

    /** Stops the daemon (exit code as {@link #restart()}) and deletes the data dir unless -Dit.keepData=true. */
    int stop() throws InterruptedException {
        int exit = stopProcess();
        if (!Boolean.getBoolean("it.keepData") && Files.exists(dataDir)) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException e) {
                appendToLog("--- harness: could not delete " + dataDir + ": " + e + "\n");
            }
        }
        return exit;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    private void appendToLog(String line) {
        try {
            Files.writeString(log, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // diagnostics only
        }
    }
}
