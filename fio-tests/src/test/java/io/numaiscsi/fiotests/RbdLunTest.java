package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.numaiscsi.rbd.CephTestCluster;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code backing: rbd} against a throw-away Ceph cluster (one mon, one memstore OSD, cephx; {@link CephTestCluster},
 * mon on port 14200) started for this class: libiscsi's whole suite with nothing FAILED on a 1 GiB image, fio's crc32c
 * verify through the target into the cluster, kill -9 of the target during FUA writes losing no acknowledged write
 * (read back with {@code rbd export}, not through the target), and a daemon refusing to start on a missing image.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RbdLunTest {
    static final int PORT_BASE = 14200;
    static final long CONFORMANCE_BYTES = 1L << 30;
    static final long FIO_BYTES = 512L << 20;
    static final long KILL_BYTES = 64L << 20;
    static final Duration FIO_LIMIT = Duration.ofMinutes(8);
    static final Duration WRITE_PHASE = Duration.ofSeconds(4);
    static final long ADDED_BYTES = 64L << 20;
    static final String IQN = IscsiTarget.DEFAULT_IQN;

    private CephTestCluster cluster;

    @BeforeAll
    void startCluster() throws IOException {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        cluster = CephTestCluster.start(
                DaemonProcess.logDir().resolveSibling("it-ceph").resolve("RbdLunTest"), PORT_BASE);
    }

    @AfterAll
    void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    private String config(String image) {
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: rbd, pool: " + CephTestCluster.POOL + ", image: " + image + ", ceph-conf: "
                + cluster.conf() + ", rbd-user: admin, keyring: " + cluster.adminKeyring() + ", rbd-timeout: 20s}\n";
    }

    @Test
    void conformanceSuitePasses() throws Exception {
        cluster.createImage("conformance", CONFORMANCE_BYTES);
        String test = "RbdLunTest-conformance";
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, config("conformance"))) {
            assertEquals(
                    1,
                    daemon.awaitLogLines("no NUMA cache on RBD image rbd/conformance", 1)
                            .size(),
                    "the daemon says the RBD LUN is served without the cache\n" + daemon.logTail());
            ConformanceRun.runAndAssert(
                    daemon.target(IQN),
                    "ALL",
                    daemon::logTail,
                    test + "-iscsi-test-cu.log",
                    test + "-conformance-summary.txt",
                    List.of());
            daemon.assertAlive();
        }
    }

    @Test
    void fioVerifiesThroughTheTargetIntoTheCluster() throws Exception {
        cluster.createImage("fio", FIO_BYTES);
        String test = "RbdLunTest-fio";
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, config("fio"))) {
            FioVerifyTest.assertVerifies(test, daemon.target(IQN), FIO_BYTES, FIO_LIMIT, daemon::logTail);
            daemon.assertAlive();
        }
    }

    /**
     * {@link KillDuringWriteTest}'s writers (FUA WRITEs, each block naming writer, LBA and generation) against an RBD
     * LUN; the daemon gets SIGKILL mid-stream and is not restarted: the image, exported with {@code rbd export}, must
     * hold every LBA's last acknowledged write or the one in flight at the kill.
     */
    @Test
    void killMinus9LosesNoAcknowledgedFuaWrite() throws Exception {
        cluster.createImage("kill", KILL_BYTES);
        String test = "RbdLunTest-kill";
        KillDuringWriteTest.Log[] logs = new KillDuringWriteTest.Log[KillDuringWriteTest.WRITERS];
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, config("kill"))) {
            ExecutorService pool = Executors.newFixedThreadPool(logs.length);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < logs.length; w++) {
                logs[w] = new KillDuringWriteTest.Log();
                int writer = w;
                writers.add(pool.submit(() -> KillDuringWriteTest.write(daemon.target(IQN), writer, logs[writer])));
            }
            Thread.sleep(WRITE_PHASE.toMillis());
            for (KillDuringWriteTest.Log l : logs) {
                assertTrue(l.writes > 0, "a writer acknowledged nothing before the kill\n" + daemon.logTail());
            }
            ProcessHandle.of(daemon.pid()).orElseThrow().destroyForcibly();
            for (Future<?> f : writers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        Path exported = DaemonProcess.logDir().resolveSibling("it-ceph").resolve("kill.img");
        Files.deleteIfExists(exported);
        cluster.rbd("export", CephTestCluster.POOL + "/kill", exported.toString());
        int total = 0;
        int checked = 0;
        int inFlightLanded = 0;
        byte[] got = new byte[KillDuringWriteTest.BLOCKS_PER_WRITE * RawIo.BLOCK];
        try (RandomAccessFile image = new RandomAccessFile(exported.toFile(), "r")) {
            for (int w = 0; w < logs.length; w++) {
                KillDuringWriteTest.Log log = logs[w];
                total += log.writes;
                for (Map.Entry<Long, Integer> e : log.acked.entrySet()) {
                    long lba = e.getKey();
                    image.seek(lba * RawIo.BLOCK);
                    image.readFully(got);
                    if (Arrays.equals(KillDuringWriteTest.content(w, lba, e.getValue()), got)) {
                        checked++;
                    } else if (lba == log.inFlightLba
                            && Arrays.equals(KillDuringWriteTest.content(w, lba, log.inFlightGeneration), got)) {
                        inFlightLanded++;
                    } else {
                        fail("writer " + w + " LBA " + lba + ": acknowledged generation " + e.getValue()
                                + " not in the image after kill -9 (" + KillDuringWriteTest.describe(got) + ")");
                    }
                }
            }
        } finally {
            Files.deleteIfExists(exported);
        }
        assertTrue(checked > 0, "nothing was checked");
        System.out.println("RbdLunTest: " + total + " FUA writes acknowledged before SIGKILL, " + checked
                + " LBAs verified in rbd export (" + inFlightLanded + " held the in-flight write)");
    }

    /**
     * An RBD LUN added to a running target with {@code numa-iscsi-admin lun-add}, every rbd key of the config file
     * given as an option: the logged-in session sees it in REPORT LUNS, and what it writes there is in the image
     * ({@code rbd export}).
     */
    @Test
    void lunAddServesAnImageLive() throws Exception {
        cluster.createImage("added", ADDED_BYTES);
        String test = "RbdLunTest-lun-add";
        String yaml = "targets:\n  - name: " + IQN + "\n    luns:\n      - {id: 0, backing: ram, size: 16M}\n";
        byte[] written = ScsiCdb.pattern(8192, 17);
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, yaml);
                TestConnection c = TestConnection.loggedIn(daemon.target(IQN))) {
            Path socket = daemon.dataDir().resolve("admin.sock");
            for (int i = 0; i < 100 && !Files.exists(socket); i++) {
                Thread.sleep(100); // the socket opens right after the portal
            }
            AdminCliRun cli = new AdminCliRun(test, socket);
            String added = cli.ok(
                    "lun-add",
                    IQN,
                    "--id",
                    "1",
                    "--backing",
                    "rbd",
                    "--pool",
                    CephTestCluster.POOL,
                    "--image",
                    "added",
                    "--ceph-conf",
                    cluster.conf().toString(),
                    "--rbd-user",
                    "admin",
                    "--keyring",
                    cluster.adminKeyring().toString(),
                    "--rbd-timeout",
                    "20s");
            assertEquals("added LUN 1 to " + IQN, added.strip());
            assertEquals(List.of(0, 1), LunChecks.reportLuns(c), "REPORT LUNS after lun-add");
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 1, 32, written).status(), "WRITE to the RBD LUN");
            byte[] synchronizeCache10 = {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.command(c, 1, synchronizeCache10, 0).status(),
                    "SYNCHRONIZE CACHE");
            cli.ok("lun-remove", IQN, "--id", "1");
            daemon.assertAlive();
        }
        Path exported = DaemonProcess.logDir().resolveSibling("it-ceph").resolve("added.img");
        Files.deleteIfExists(exported);
        cluster.rbd("export", CephTestCluster.POOL + "/added", exported.toString());
        try (RandomAccessFile image = new RandomAccessFile(exported.toFile(), "r")) {
            byte[] got = new byte[written.length];
            image.seek(32 * RawIo.BLOCK);
            image.readFully(got);
            assertArrayEquals(written, got, "the write through the added LUN is in the image");
        } finally {
            Files.deleteIfExists(exported);
        }
    }

    @Test
    void aMissingImageStopsTheDaemonNamingIt() throws Exception {
        ToolRun r = ConfiguredDaemon.refusedStart("RbdLunTest-missing", config("nosuch"), Duration.ofSeconds(90));
        assertTrue(r.output().contains("RBD image rbd/nosuch does not exist"), r.describe(30));
    }
}
