package io.numaiscsi.fiotests.soak;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One daemon of the soak as a process that is killed, stopped and started again on the same portal, metrics port and
 * data directory. Every start appends to one log ({@code <name>-daemon.log}, with the harness's own lines starting
 * {@code --- soak:}) and writes its own GC log ({@code <name>-gc-<start>.log}: the {@code gc} and {@code safepoint}
 * tags, wall-clock time stamps).
 */
public final class SoakDaemon implements AutoCloseable {
    static final String MAIN_CLASS = "io.numaiscsi.daemon.Main";
    static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    /** SIGTERM flushes write-back caches before the exit; the packaged unit allows 5 minutes, a soak LUN needs less. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(90);

    private final String name;
    private final Path out;
    private final Path dataDir;
    private final Path config;
    private final Path log;
    private final Path argFile;
    private final int port;
    private final int metricsPort;
    private final List<String> jvmOptions;
    private volatile Process process;
    private volatile int starts;
    private final List<Integer> cleanExitCodes = new ArrayList<>();

    SoakDaemon(String name, Path out, Path dataDir, List<String> jvmOptions) throws IOException {
        this.name = name;
        this.out = out;
        this.dataDir = dataDir;
        this.config = dataDir.resolve("target.yaml");
        this.log = out.resolve(name + "-daemon.log");
        this.argFile = out.resolve(name + ".java-args");
        this.port = freeLoopbackPort();
        this.metricsPort = freeLoopbackPort();
        this.jvmOptions = List.copyOf(jvmOptions);
        Files.write(argFile, List.of("-cp", "\"" + daemonClasspath().replace("\\", "\\\\") + "\""));
    }

    /** The daemon's classpath, handed over by the fio-tests pom (surefire's manifest jar hides java.class.path). */
    static String daemonClasspath() {
        String cp = System.getProperty("it.daemon.classpath", "");
        if (cp.isBlank() || cp.startsWith("${") || !cp.contains("target-daemon")) {
            throw new IllegalStateException(
                    "no daemon classpath: run the soak through Maven (bin/soak, or the fio-tests "
                            + "pom's -Dit.daemon.classpath)");
        }
        return cp;
    }

    static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public int metricsPort() {
        return metricsPort;
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path adminSocket() {
        return dataDir.resolve("admin.sock");
    }

    public Path log() {
        return log;
    }

    public Path config() {
        return config;
    }

    /** Which start this is (1 = the first); the GC log and the sampler's counters go by it. */
    public int incarnation() {
        return starts;
    }

    public long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    public boolean alive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Exit codes of the SIGTERM stops (each must be 0). */
    public synchronized List<Integer> cleanExitCodes() {
        return List.copyOf(cleanExitCodes);
    }

    Path gcLog(int incarnation) {
        return out.resolve(name + "-gc-" + incarnation + ".log");
    }

    /** Writes the config (mode 0600: it holds a CHAP secret) for the next start or SIGHUP. */
    void writeConfig(String yamlAfterPortals) throws IOException {
        String yaml = "daemon:\n  data-dir: " + dataDir + "\nportals: [127.0.0.1:" + port + "]\n" + yamlAfterPortals;
        Path tmp = config.resolveSibling("target.yaml.tmp");
        Files.writeString(tmp, yaml, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        Files.move(tmp, config, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    synchronized void start() throws IOException, InterruptedException {
        if (alive()) {
            throw new IllegalStateException(name + " is running");
        }
        starts++;
        // ready = the admin socket is there (the daemon opens it after every portal listens) and metrics answer; a
        // socket the killed daemon left must not count
        Files.deleteIfExists(adminSocket());
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Dchronicle.analytics.disable=true");
        cmd.addAll(jvmOptions);
        cmd.add("-Xlog:gc,safepoint:file=" + gcLog(starts) + ":time,level,tags");
        cmd.add("@" + argFile);
        cmd.add(MAIN_CLASS);
        cmd.addAll(List.of("--config", config.toString(), "--metrics", "127.0.0.1:" + metricsPort));
        note("start " + starts + ": " + String.join(" ", cmd));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        process = p;
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!(Files.exists(adminSocket()) && accepts(metricsPort))) {
            if (!p.isAlive()) {
                throw new IOException(name + " exited with code " + p.exitValue() + " during its start; see " + log);
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException(name + " not ready within " + READY_TIMEOUT.toSeconds() + " s; see " + log);
            }
            Thread.sleep(200);
        }
        note("ready: pid " + p.pid());
    }

    /** SIGKILL: nothing flushed, no shutdown hook. */
    synchronized void kill9() throws InterruptedException {
        Process p = process;
        note("SIGKILL pid " + p.pid());
        p.destroyForcibly();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " pid " + p.pid() + " alive 20 s after SIGKILL");
        }
        note("killed, exit code " + p.exitValue());
    }

    /** SIGTERM and the wait for the exit (SIGKILL after {@link #STOP_TIMEOUT}); returns the exit code. */
    synchronized int stop() throws InterruptedException {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return p == null ? 0 : p.exitValue();
        }
        note("SIGTERM pid " + p.pid());
        p.destroy();
        if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            note("no exit " + STOP_TIMEOUT.toSeconds() + " s after SIGTERM: SIGKILL");
            p.destroyForcibly();
            p.waitFor(20, TimeUnit.SECONDS);
        }
        int code = p.exitValue();
        cleanExitCodes.add(code);
        note("exited with code " + code);
        return code;
    }

    /** SIGHUP: the daemon rereads its config file. */
    synchronized void sighup() throws IOException, InterruptedException {
        note("SIGHUP pid " + process.pid());
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -HUP " + process.pid() + " failed");
        }
    }

    /** Appends a harness line to the daemon's log. */
    void note(String what) {
        try {
            Files.writeString(
                    log,
                    "--- soak: " + Instant.now() + " " + what + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // diagnostics only
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
