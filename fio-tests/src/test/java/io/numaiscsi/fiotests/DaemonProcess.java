package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The daemon under test as a separate JVM: a free loopback port, a temp data dir with a config
 * file, stdout+stderr in {@code target/it-logs/<test>.log}, ready when the portal accepts TCP,
 * stopped with SIGTERM and killed if it does not exit in time.
 *
 * <p>With {@code -Dit.external.url=iscsi://HOST:PORT/IQN/LUN} nothing is started and the tests run
 * against that target instead (how the harness is checked against tgtd, whose disk is LUN 1);
 * {@code -Dit.external.lunSize} (bytes, default 1 GiB) then tells the tests the LUN's size.
 */
final class DaemonProcess implements AutoCloseable {

    static final String MAIN_CLASS = "io.numaiscsi.daemon.Main";
    static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final int LOG_TAIL_LINES = 40;

    private final IscsiTarget target;
    private final long lunBytes;
    private final Path log;
    private final Path dataDir;
    private final Process process;
    private Integer exitCode;

    private DaemonProcess(IscsiTarget target, long lunBytes, Path log, Path dataDir, Process process) {
        this.target = target;
        this.lunBytes = lunBytes;
        this.log = log;
        this.dataDir = dataDir;
        this.process = process;
    }

    static Path logDir() {
        return Path.of(System.getProperty("it.logDir", "target/it-logs")).toAbsolutePath();
    }

    /**
     * Starts the daemon serving {@link IscsiTarget#DEFAULT_IQN} LUN 0, a sparse file of
     * {@code lunBytes} with 512-byte blocks, and waits until its portal accepts connections.
     */
    static DaemonProcess start(String testName, long lunBytes) throws IOException, InterruptedException {
        return start(testName, Setup.fileLun(lunBytes));
    }

    /** Starts the daemon with extra {@code iscsi:} keys, LUNs or an allow list; see {@link Setup}. */
    static DaemonProcess start(String testName, Setup setup) throws IOException, InterruptedException {
        long lunBytes = setup.lunBytes;
        Path logDir = logDir();
        Files.createDirectories(logDir);
        Path log = logDir.resolve(testName + ".log");
        String external = System.getProperty("it.external.url", "");
        if (!external.isBlank()) {
            Files.writeString(log, "external target " + external + ", nothing started\n");
            long size = Long.getLong("it.external.lunSize", 1L << 30);
            DaemonProcess d = new DaemonProcess(IscsiTarget.parse(external.strip()), size, log, null, null);
            d.assertAlive();
            return d;
        }
        int port = freeLoopbackPort();
        Path dataDir = ItDataDirs.newDir(testName);
        Path config = dataDir.resolve("target.yaml");
        Files.writeString(config, config(dataDir, port, setup), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString(setup.configPermissions));

        List<String> mainArgs = new ArrayList<>(List.of("--config", config.toString()));
        mainArgs.addAll(setup.daemonArgs);
        List<String> cmd = command(testName, mainArgs);
        if (setup.umask != null) {
            cmd = withUmask(setup.umask, cmd);
        }
        Files.writeString(
                log,
                "$ " + String.join(" ", cmd) + "\n--- " + config + "\n" + Files.readString(config) + "---\n",
                StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        // a test JVM killed by surefire must not leave a daemon behind
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        DaemonProcess d = new DaemonProcess(
                new IscsiTarget("127.0.0.1", port, IscsiTarget.DEFAULT_IQN, 0), lunBytes, log, dataDir, p);
        d.awaitReady(metricsPort(setup.daemonArgs));
        return d;
    }

    /**
     * The java command line that runs the daemon's main class with {@code mainArgs} and the launcher's default JVM
     * options ({@link LauncherJvmOptions}). The long classpath goes to a java @argfile, so the log and failure
     * messages stay readable.
     */
    static List<String> command(String testName, List<String> mainArgs) throws IOException {
        return command(testName, MAIN_CLASS, mainArgs);
    }

    /** The java command line that runs another main class of the daemon's jar (e.g. the admin CLI). */
    static List<String> command(String testName, String mainClass, List<String> mainArgs) throws IOException {
        Path logDir = logDir();
        Files.createDirectories(logDir);
        Path argFile = logDir.resolve(testName + ".java-args");
        Files.write(
                argFile,
                List.of(
                        "-Dchronicle.analytics.disable=true",
                        "-cp",
                        "\"" + daemonClasspath().replace("\\", "\\\\") + "\""));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (mainClass.equals(MAIN_CLASS)) {
            cmd.addAll(LauncherJvmOptions.DEFAULTS);
        }
        cmd.add("@" + argFile);
        cmd.add(mainClass);
        cmd.addAll(mainArgs);
        return List.copyOf(cmd);
    }

    /** {@code command} run by {@code sh} under another umask (octal); exec keeps the daemon's pid. */
    static List<String> withUmask(String umask, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "umask " + umask + " && exec \"$@\"", "sh"));
        cmd.addAll(command);
        return List.copyOf(cmd);
    }

    static String config(Path dataDir, int port, long lunBytes) {
        return config(dataDir, port, Setup.fileLun(lunBytes));
    }

    static String config(Path dataDir, int port, Setup setup) {
        StringBuilder yaml = new StringBuilder()
                .append("daemon:\n")
                .append("  data-dir: ")
                .append(dataDir)
                .append('\n')
                .append("portals: [127.0.0.1:")
                .append(port)
                .append("]\n");
        if (!setup.iscsi.isEmpty()) {
            yaml.append("iscsi:\n");
            setup.iscsi.forEach(
                    (k, v) -> yaml.append("  ").append(k).append(": ").append(v).append('\n'));
        }
        for (String section : setup.sections) {
            yaml.append(section.endsWith("\n") ? section : section + "\n");
        }
        yaml.append("targets:\n")
                .append("  - name: ")
                .append(IscsiTarget.DEFAULT_IQN)
                .append('\n');
        if (!setup.allow.isEmpty()) {
            yaml.append("    allow: [").append(String.join(", ", setup.allow)).append("]\n");
        }
        yaml.append("    luns:\n")
                .append("      - {id: 0, backing: file, path: lun0.img, size: ")
                .append(sizeLiteral(setup.lunBytes))
                .append(", block-size: 512}\n");
        for (String lun : setup.extraLuns) {
            yaml.append("      - ").append(lun).append('\n');
        }
        return yaml.toString();
    }

    /** What the test's config file holds beyond the file-backed LUN 0 of the default target. */
    static final class Setup {
        private final long lunBytes;
        private final Map<String, String> iscsi = new LinkedHashMap<>();
        private final List<String> extraLuns = new ArrayList<>();
        private final List<String> allow = new ArrayList<>();
        private final List<String> daemonArgs = new ArrayList<>();
        private final List<String> sections = new ArrayList<>();
        private String configPermissions = "rw-------";
        private String umask;

        private Setup(long lunBytes) {
            this.lunBytes = lunBytes;
        }

        static Setup fileLun(long lunBytes) {
            return new Setup(lunBytes);
        }

        /** An {@code iscsi:} key as written in YAML, e.g. {@code ("header-digest", "[CRC32C, None]")}. */
        Setup iscsi(String key, String value) {
            iscsi.put(key, value);
            return this;
        }

        Setup ramLun(int id, long bytes) {
            extraLuns.add("{id: " + id + ", backing: ram, size: " + sizeLiteral(bytes) + ", block-size: 512}");
            return this;
        }

        /** Another LUN of the target as a YAML flow mapping, e.g. {@code "{id: 1, backing: ram, size: 8M, inject-latency: 200ms}"}. */
        Setup lun(String flowMapping) {
            extraLuns.add(flowMapping);
            return this;
        }

        /** Extra command-line arguments for the daemon, e.g. {@code --event-model CENTRALIZED}. */
        Setup daemonArgs(String... args) {
            daemonArgs.addAll(List.of(args));
            return this;
        }

        Setup allow(String initiatorName) {
            allow.add(initiatorName);
            return this;
        }

        /**
         * A top-level section written as is before {@code targets:}, e.g.
         * {@code "cache: {mode: numa, write-policy: write-back}"} or {@code "numa: {pretend-nodes: 2}"}.
         */
        Setup section(String yaml) {
            sections.add(yaml);
            return this;
        }

        /** The config file's mode as {@code ls} shows it; default {@code rw-------} (a config may hold secrets). */
        Setup configPermissions(String permissions) {
            configPermissions = permissions;
            return this;
        }

        /** Starts the daemon under this umask (octal, e.g. {@code "000"}) instead of the test JVM's. */
        Setup umask(String octal) {
            umask = octal;
            return this;
        }

        List<String> daemonArgs() {
            return List.copyOf(daemonArgs);
        }
    }

    /** The config file's size notation: 1G, 64M, 4K, or plain bytes. */
    static String sizeLiteral(long bytes) {
        String[] units = {"G", "M", "K"};
        int[] shifts = {30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            if (bytes > 0 && bytes % (1L << shifts[i]) == 0) {
                return (bytes >> shifts[i]) + units[i];
            }
        }
        return Long.toString(bytes);
    }

    static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String daemonClasspath() {
        String cp = System.getProperty("it.daemon.classpath", "");
        if (cp.isBlank() || cp.startsWith("${")) {
            cp = System.getProperty("java.class.path", "");
        }
        if (!cp.contains("target-daemon")) {
            fail("no daemon classpath: run through Maven (the fio-tests pom sets -Dit.daemon.classpath), got: " + cp);
        }
        return cp;
    }

    /** The port of {@code --metrics HOST:PORT} among the daemon's arguments, or 0 without one. */
    private static int metricsPort(List<String> args) {
        int i = args.indexOf("--metrics");
        if (i < 0 || i + 1 >= args.size()) {
            return 0;
        }
        String at = args.get(i + 1);
        return Integer.parseInt(at.substring(at.lastIndexOf(':') + 1));
    }

    /**
     * Until the portal accepts connections, and the metrics endpoint too when there is one: the daemon starts it
     * after the portals listen, and a test that scrapes at once must not find it closed.
     */
    private void awaitReady(int metricsPort) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                exitCode = process.exitValue();
                deleteDataDir();
                fail("daemon exited with code " + exitCode + " before its portal " + target.host() + ":" + target.port()
                        + " accepted connections\n" + logTail());
            }
            if (target.portalAccepts() && (metricsPort == 0 || IscsiTarget.accepts(target.host(), metricsPort))) {
                return;
            }
            Thread.sleep(100);
        }
        String tail = logTail();
        stop();
        fail("daemon portal " + target.host() + ":" + target.port() + " not ready within " + READY_TIMEOUT.toSeconds()
                + " s\n" + tail);
    }

    IscsiTarget target() {
        return target;
    }

    long lunBytes() {
        return lunBytes;
    }

    Path log() {
        return log;
    }

    /**
     * Rewrites the config file for {@code setup} (same portal and data dir) and sends SIGHUP, which makes the daemon
     * apply the difference live. Returns at once: the caller watches for the effect.
     */
    void reconfigure(Setup setup) throws IOException, InterruptedException {
        Path config = dataDir.resolve("target.yaml");
        String yaml = config(dataDir, target.port(), setup);
        Files.writeString(config, yaml, StandardCharsets.UTF_8);
        Files.writeString(
                log,
                "--- reconfigured " + config + "\n" + yaml + "---\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            fail("kill -HUP " + pid() + " failed\n" + logTail());
        }
    }

    /** The daemon's process id (for /proc measurements), or -1 for an external target. */
    long pid() {
        return process == null ? -1 : process.pid();
    }

    boolean external() {
        return process == null;
    }

    /** Fails (with the log tail) unless the daemon process runs and its portal accepts TCP. */
    void assertAlive() {
        if (process != null && !process.isAlive()) {
            fail("daemon died with exit code " + process.exitValue() + "\n" + logTail());
        }
        if (!target.portalAccepts()) {
            fail("portal " + target.host() + ":" + target.port() + " refuses connections\n" + logTail());
        }
    }

    /** The daemon's data directory (null for an external target). */
    Path dataDir() {
        return dataDir;
    }

    /** The last lines of the daemon's log, headed by its path: for assertion messages. */
    String logTail() {
        return "--- daemon log " + log + " (last " + LOG_TAIL_LINES + " lines):\n" + ToolRun.tail(log, LOG_TAIL_LINES)
                + "\n---";
    }

    /**
     * SIGQUIT to a daemon that did not stop: the JVM prints every thread's stack to its output (this test's log), so a
     * stop that hangs says where; waits a moment for the dump.
     */
    static void dumpThreads(Process p) throws InterruptedException {
        try {
            new ProcessBuilder("kill", "-QUIT", Long.toString(p.pid()))
                    .redirectErrorStream(true)
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            return;
        }
        Thread.sleep(2000);
    }

    /** SIGTERM, wait {@link #STOP_TIMEOUT}, then SIGKILL; returns the exit code (0 = clean shutdown). */
    int stop() throws InterruptedException {
        if (process == null) {
            return 0;
        }
        if (exitCode == null) {
            process.destroy();
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                appendToLog("--- harness: no exit " + STOP_TIMEOUT.toSeconds()
                        + " s after SIGTERM, thread dump, SIGKILL\n");
                dumpThreads(process);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            exitCode = process.exitValue();
            appendToLog("--- harness: daemon exited with code " + exitCode + "\n");
            deleteDataDir();
        }
        return exitCode;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    private void appendToLog(String line) {
        try {
            Files.writeString(log, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the log is diagnostics only
        }
    }

    private void deleteDataDir() {
        if (dataDir == null || Boolean.getBoolean("it.keepData")) {
            return;
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            appendToLog("--- harness: could not delete " + dataDir + ": " + e + "\n");
        }
    }
}
