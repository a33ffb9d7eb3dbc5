package io.numaiscsi.rbd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away single-node Ceph cluster (one ceph-mon, one ceph-osd on memstore, cephx, loopback) for one test class:
 * {@code fio-tests/ceph/test-cluster.sh} started in {@code @BeforeAll} and stopped in {@code @AfterAll}. memstore
 * keeps nothing, so each class gets a fresh cluster (about 2 s).
 */
public final class CephTestCluster implements AutoCloseable {
    public static final String POOL = "rbd";
    private static final String SCRIPT = "fio-tests/ceph/test-cluster.sh";

    private final Path dir;
    private final int portBase;
    private final Path script;
    private boolean running;

    private CephTestCluster(Path dir, int portBase, Path script) {
        this.dir = dir;
        this.portBase = portBase;
        this.script = script;
    }

    /**
     * Starts a cluster in {@code dir} whose mon listens on {@code portBase} and {@code portBase + 1} and whose OSD binds
     * within {@code portBase + 10 .. + 39}; pool {@link #POOL} exists and is ready when this returns.
     */
    public static CephTestCluster start(Path dir, int portBase) throws IOException {
        CephTestCluster c = new CephTestCluster(dir.toAbsolutePath(), portBase, script());
        Files.createDirectories(c.dir);
        c.running = true;
        // a test JVM killed by surefire must not leave the cluster's daemons behind
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                c.close();
            } catch (IOException ignored) {
                // best effort at exit
            }
        }));
        try {
            c.exec(
                    Duration.ofSeconds(120),
                    "bash",
                    c.script.toString(),
                    "start",
                    c.dir.toString(),
                    Integer.toString(portBase));
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** The script, found from the working directory upwards (a module directory or the project root). */
    static Path script() throws IOException {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve(SCRIPT);
            if (Files.isRegularFile(s)) {
                return s;
            }
        }
        throw new IOException(SCRIPT + " not found above " + Path.of("").toAbsolutePath());
    }

    public Path dir() {
        return dir;
    }

    public int portBase() {
        return portBase;
    }

    public Path conf() {
        return dir.resolve("ceph.conf");
    }

    public Path adminKeyring() {
        return dir.resolve("ceph.client.admin.keyring");
    }

    /** client.admin with its keyring and a short timeout. */
    public CephClient admin(Duration timeout) {
        return new CephClient(conf(), "admin", adminKeyring(), timeout);
    }

    public CephClient admin() {
        return admin(Duration.ofSeconds(10));
    }

    /** rbd create --size of {@code bytes} (a multiple of 1 MiB) in {@link #POOL}. */
    public void createImage(String image, long bytes) throws IOException {
        rbd("create", "--size", (bytes >> 20) + "M", POOL + "/" + image);
    }

    /** Runs {@code rbd -c conf ARGS}, returning its output. */
    public String rbd(String... args) throws IOException {
        return tool("rbd", args);
    }

    /** Runs {@code ceph -c conf ARGS}, returning its output. */
    public String ceph(String... args) throws IOException {
        return tool("ceph", args);
    }

    private String tool(String tool, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(tool, "-c", conf().toString()));
        cmd.addAll(List.of(args));
        return exec(Duration.ofSeconds(120), cmd.toArray(String[]::new));
    }

    /** The PID of the OSD (tests stop and continue it to make the cluster go away and come back). */
    public long osdPid() throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("osd.pid")).trim());
    }

    private String exec(Duration limit, String... cmd) throws IOException {
        Path out = Files.createTempFile(dir, "cmd", ".out");
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            boolean ended;
            try {
                ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended = false;
            }
            if (!ended) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not end within " + limit);
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Stops the OSD, then the mon. */
    @Override
    public synchronized void close() throws IOException {
        if (running) {
            running = false;
            exec(Duration.ofSeconds(60), "bash", script.toString(), "stop", dir.toString());
        }
    }
}
