package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The daemon started from a test's own YAML sections (CHAP, access lists, limits), which
 * {@link DaemonProcess.Setup} cannot express. The harness writes {@code daemon:} and {@code portals:}; the test
 * gives the rest, naming targets as it likes.
 */
final class ConfiguredDaemon implements AutoCloseable {
    private final IscsiTarget target;
    private final Path log;
    private final Path dataDir;
    private final List<String> command;
    private Process process;
    private Integer exitCode;

    private ConfiguredDaemon(IscsiTarget target, Path log, Path dataDir, List<String> command, Process process) {
        this.target = target;
        this.log = log;
        this.dataDir = dataDir;
        this.command = command;
        this.process = process;
    }

    /**
     * Starts the daemon with {@code yaml} after the daemon and portal sections (a {@code daemon:} section that
     * {@code yaml} begins with joins the daemon section); waits for its portal and admin socket.
     */
    static ConfiguredDaemon start(String testName, String yaml) throws IOException, InterruptedException {
        return start(List.of(), testName, yaml);
    }

    /** As {@link #start(String, String)}, the daemon's command run through {@code launcher} (e.g. nohup). */
    static ConfiguredDaemon start(List<String> launcher, String testName, String yaml)
            throws IOException, InterruptedException {
        Path logDir = DaemonProcess.logDir();
        Path log = logDir.resolve(testName + ".log");
        int port = DaemonProcess.freeLoopbackPort();
        Path config = writeConfig(testName, yaml, port);
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(DaemonProcess.command(testName, List.of("--config", config.toString())));
        // The config holds secrets: the log gets the command only, so a secret found in it came from the daemon.
        Files.writeString(log, "$ " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
        ConfiguredDaemon d = new ConfiguredDaemon(
                new IscsiTarget("127.0.0.1", port, IscsiTarget.DEFAULT_IQN, 0),
                log,
                config.getParent(),
                List.copyOf(cmd),
                launch(cmd, log));
        d.awaitReady();
        return d;
    }

    private static Process launch(List<String> cmd, Path log) throws IOException {
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        return p;
    }

    /** SIGKILL (nothing flushed, no shutdown hook); returns the exit code (137). */
    int kill() throws IOException, InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            fail("daemon pid " + process.pid() + " still alive 10 s after SIGKILL");
        }
        Files.writeString(
                log,
                "--- harness: SIGKILL pid " + process.pid() + ", exit code " + process.exitValue() + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        return process.exitValue();
    }

    /** After {@link #kill}: the same command again (same config, port and data dir); waits for its portal and admin socket. */
    void restart() throws IOException, InterruptedException {
        if (process.isAlive()) {
            fail("restart: the daemon is still running");
        }
        Files.writeString(log, "--- harness: restart\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        process = launch(command, log);
        awaitReady();
    }

    /**
     * Runs a daemon configured as {@link #start} does that must refuse to start: asserts it exited, not 0, within
     * {@code limit}, and returns its run (output in {@code it-logs/testName.log}).
     */
    static ToolRun refusedStart(String testName, String yaml, Duration limit) throws IOException, InterruptedException {
        Path config = writeConfig(testName, yaml, DaemonProcess.freeLoopbackPort());
        ToolRun r = ToolRun.run(
                DaemonProcess.logDir().resolve(testName + ".log"),
                limit,
                DaemonProcess.command(testName, List.of("--config", config.toString())));
        assertFalse(r.timedOut(), "the daemon served instead of refusing\n" + r.describe(30));
        assertNotEquals(0, r.exitCode(), "exit code\n" + r.describe(30));
        return r;
    }

    /** {@code yaml} in a fresh data directory of its own, after the daemon and portal sections; mode 0600. */
    private static Path writeConfig(String testName, String yaml, int port) throws IOException {
        String daemonKeys = "";
        if (yaml.startsWith("daemon:\n")) {
            int end = "daemon:\n".length();
            while (end < yaml.length() && yaml.startsWith("  ", end)) {
                end = yaml.indexOf('\n', end) + 1;
            }
            daemonKeys = yaml.substring("daemon:\n".length(), end);
            yaml = yaml.substring(end);
        }
        Path logDir = DaemonProcess.logDir();
        Files.createDirectories(logDir);
        Path dataDir = ItDataDirs.newDir(testName);
        Path config = dataDir.resolve("target.yaml");
        Files.writeString(
                config,
                "daemon:\n  data-dir: " + dataDir + "\n" + daemonKeys + "portals: [127.0.0.1:" + port + "]\n" + yaml,
                StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-------")); // it holds secrets
        return config;
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + DaemonProcess.READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                exitCode = process.exitValue();
                fail("daemon exited with code " + exitCode + " before its portal accepted connections\n" + logTail());
            }
            if (target.portalAccepts() && adminSocketAccepts()) {
                return;
            }
            Thread.sleep(100);
        }
        close();
        fail("daemon portal or admin socket not ready\n" + logTail());
    }

    /**
     * The daemon opens its admin socket after every portal listens, so a test that goes on to the CLI at once must
     * wait for it too; a file left by a killed daemon is not enough, the socket must accept.
     */
    private boolean adminSocketAccepts() {
        int i = command.indexOf("--admin-socket");
        if (i >= 0 && "off".equals(command.get(i + 1))) {
            return true;
        }
        Path socket = i >= 0 ? Path.of(command.get(i + 1)) : dataDir.resolve("admin.sock");
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return c.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    /** The portal, with target {@code iqn} LUN 0. */
    IscsiTarget target(String iqn) {
        return new IscsiTarget(target.host(), target.port(), iqn, 0);
    }

    Path dataDir() {
        return dataDir;
    }

    Path log() {
        return log;
    }

    long pid() {
        return process.pid();
    }

    /**
     * Rewrites the config file with {@code yaml} after the same daemon and portal sections (as {@link #start} does),
     * sends SIGHUP and waits until the daemon logged that the reload was applied.
     */
    void reload(String yaml) throws IOException, InterruptedException {
        Path config = dataDir.resolve("target.yaml");
        String text = Files.readString(config, StandardCharsets.UTF_8);
        int portals = text.indexOf("portals: [");
        String head = text.substring(0, text.indexOf('\n', portals) + 1);
        Files.writeString(config, head + yaml, StandardCharsets.UTF_8);
        int applied = logLines("change(s) applied").size();
        signal("HUP");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (logLines("change(s) applied").size() == applied) {
            if (System.nanoTime() > deadline) {
                fail("the daemon did not apply the reload within 30 s\n" + logTail());
            }
            Thread.sleep(100);
        }
    }

    /** Sends {@code signal} (STOP, CONT, ...) to the daemon with kill(1). */
    void signal(String signal) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (p.waitFor() != 0) {
            fail("kill -" + signal + " " + process.pid() + " failed");
        }
        if (signal.equals("STOP")) {
            awaitStopped(); // kill(1) returns before every thread has stopped: a thread could still run a moment
        }
        Files.writeString(
                log,
                "--- harness: SIG" + signal + " pid " + process.pid() + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
    }

    /** Waits until every thread of the daemon is stopped (state T in /proc/PID/task/TID/stat). */
    private void awaitStopped() throws IOException, InterruptedException {
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            boolean all = true;
            try (Stream<Path> ts = Files.list(tasks)) {
                for (Path t : (Iterable<Path>) ts::iterator) {
                    String stat;
                    try {
                        stat = Files.readString(t.resolve("stat"));
                    } catch (NoSuchFileException gone) {
                        continue; // a thread that ended
                    }
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    if (state != 'T' && state != 't') {
                        all = false;
                        break;
                    }
                }
            }
            if (all) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("daemon pid " + process.pid() + " not stopped 10 s after SIGSTOP");
            }
            Thread.sleep(1);
        }
    }

    String logText() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Lines of the daemon log containing {@code text}. */
    List<String> logLines(String text) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : logText().split("\n")) {
            if (line.contains(text)) {
                out.add(line);
            }
        }
        return out;
    }

    /** Waits up to 5 s for at least {@code count} log lines containing {@code text} (the log is written async). */
    List<String> awaitLogLines(String text, int count) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> lines = logLines(text);
        while (lines.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(50);
            lines = logLines(text);
        }
        return lines;
    }

    String logTail() {
        return "--- daemon log " + log + ":\n" + ToolRun.tail(log, 40) + "\n---";
    }

    void assertAlive() {
        if (!process.isAlive()) {
            fail("daemon died with exit code " + process.exitValue() + "\n" + logTail());
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (exitCode != null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        exitCode = process.exitValue();
        if (!Boolean.getBoolean("it.keepData")) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException ignored) {
                // diagnostics only
            }
        }
    }
}
