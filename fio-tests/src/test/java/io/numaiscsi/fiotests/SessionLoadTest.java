package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link #SESSIONS} sessions (each its own initiator name) log in at once, then log in and out repeatedly for
 * {@link #CHURN} (every fourth leaves by closing the socket instead of a Logout), each writing and reading back a block
 * per login, while fio's libiscsi engine runs verified random writes on LUN 1. Before and after: the daemon's file
 * descriptors, threads and resident memory (/proc) and its {@code iscsi_sessions} gauge; the figures go to
 * {@code it-logs/SessionLoadTest-figures.txt}.
 */
@Tag("it")
class SessionLoadTest {
    static final int SESSIONS = 64;
    static final Duration CHURN = Duration.ofSeconds(30);
    static final Duration ANSWER = Duration.ofSeconds(20);
    static final long LUN_BYTES = 64L << 20;

    private static Map<String, String> keys(IscsiTarget target, int worker) {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(target));
        keys.put("InitiatorName", TestConnection.INITIATOR_NAME + "-" + worker);
        return keys;
    }

    @Test
    void sixtyFourSessionsChurnWithoutLeaks() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(LUN_BYTES)
                .ramLun(1, LUN_BYTES)
                .daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        try (DaemonProcess daemon = DaemonProcess.start("SessionLoadTest", setup)) {
            ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
            try {
                // warm-up: all 64 at once, so lazily started threads exist before the baseline
                int held = holdAll(daemon, pool);
                assertEquals(SESSIONS, held, "sessions logged in at once");
                RawIo.ProcStats before = settle(daemon, null);
                List<String> threadsBefore = RawIo.ProcStats.threadNames(daemon.pid());
                double sessionsBefore = RawIo.metric(metricsPort, "iscsi_sessions");

                Path dir = DaemonProcess.logDir();
                Path job = dir.resolve("SessionLoadTest.fio");
                Files.writeString(
                        job,
                        "[global]\nioengine=libiscsi\nrw=randwrite\nbs=4k\niodepth=8\nverify=crc32c\n"
                                + "verify_fatal=1\nsize=32m\n\n[lun1]\nfilename="
                                + new IscsiTarget(
                                                daemon.target().host(),
                                                daemon.target().port(),
                                                daemon.target().iqn(),
                                                1)
                                        .fioFilename()
                                + "\n");
                Process fioRun = new ProcessBuilder(fio, "--eta=never", job.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("SessionLoadTest-fio.log").toFile())
                        .start();

                AtomicInteger logins = new AtomicInteger();
                AtomicInteger abrupt = new AtomicInteger();
                long deadline = System.nanoTime() + CHURN.toNanos();
                List<Future<?>> work = new ArrayList<>();
                for (int w = 0; w < SESSIONS; w++) {
                    int worker = w;
                    work.add(pool.submit(() -> churn(daemon, worker, deadline, logins, abrupt)));
                }
                for (Future<?> f : work) {
                    f.get(CHURN.toSeconds() + 120, TimeUnit.SECONDS);
                }
                // right after the storm: a connection that ended is garbage at once, not held by a timer or a table
                long liveConnections = LiveObjects.count(daemon.pid(), "io.numaiscsi.session.IscsiConnection");
                boolean fioDone = fioRun.waitFor(5, TimeUnit.MINUTES);
                if (!fioDone) {
                    fioRun.destroyForcibly();
                }
                String fioLog = ToolRun.tail(dir.resolve("SessionLoadTest-fio.log"), 20);
                assertTrue(fioDone, "fio did not finish\n" + fioLog);
                assertEquals(0, fioRun.exitValue(), "fio exit code\n" + fioLog + "\n" + daemon.logTail());
                assertFalse(fioLog.contains("verify:"), fioLog);

                RawIo.ProcStats after = settle(daemon, before);
                double sessionsAfter = awaitSessions(metricsPort, sessionsBefore);
                List<String> threadsAfter = RawIo.ProcStats.threadNames(daemon.pid());
                List<String> newThreads = new ArrayList<>(threadsAfter);
                threadsBefore.forEach(newThreads::remove);
                String figures = String.format(
                        "%d sessions held at once; %d logins in %d s (%d left by closing the "
                                + "socket) beside a verified fio job; %d connections live at the storm's end; before: %s, "
                                + "sessions=%.0f; after: %s, sessions=%.0f; new threads: %s%n",
                        held,
                        logins.get(),
                        CHURN.toSeconds(),
                        abrupt.get(),
                        liveConnections,
                        before,
                        sessionsBefore,
                        after,
                        sessionsAfter,
                        newThreads);
                Files.writeString(dir.resolve("SessionLoadTest-figures.txt"), figures);
                System.out.print("SessionLoadTest: " + figures);
                assertTrue(logins.get() >= SESSIONS * 3, figures);
                assertEquals(sessionsBefore, sessionsAfter, "sessions left behind: " + figures);
                assertTrue(liveConnections <= SESSIONS + 8, "connections kept after they ended: " + figures);
                assertTrue(after.fds() <= before.fds() + 4, "file descriptors leaked: " + figures + daemon.logTail());
                assertTrue(after.threads() <= before.threads() + 2, "threads leaked: " + figures + daemon.logTail());
                TestConnection.assertFreshSessionWorks(daemon);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** All sessions log in, meet at a barrier (all held at once), ping, log out; returns how many met. */
    private static int holdAll(DaemonProcess daemon, ExecutorService pool) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(SESSIONS);
        AtomicInteger met = new AtomicInteger();
        List<Future<?>> all = new ArrayList<>();
        for (int w = 0; w < SESSIONS; w++) {
            int worker = w;
            all.add(pool.submit(() -> {
                try (TestConnection c = TestConnection.loggedIn(
                        daemon.target(), keys(daemon.target(), worker), TestConnection.newIsidQualifier())) {
                    barrier.await(60, TimeUnit.SECONDS);
                    met.incrementAndGet();
                    c.ping();
                    // I/O on both LUNs, so the backing-store threads exist before the baseline too
                    byte[] data = ScsiCdb.pattern(4096, worker);
                    for (int lun = 0; lun < 2; lun++) {
                        assertEquals(
                                ScsiResult.GOOD,
                                RawIo.write(c, lun, 2048L + worker * 64L, data, false, ANSWER)
                                        .status());
                    }
                    assertTrue(RawIo.logout(c, ANSWER), "logout of worker " + worker);
                }
                return null;
            }));
        }
        for (Future<?> f : all) {
            f.get(120, TimeUnit.SECONDS);
        }
        return met.get();
    }

    private static Void churn(
            DaemonProcess daemon, int worker, long deadline, AtomicInteger logins, AtomicInteger abrupt)
            throws IOException {
        long lba = 2048L + worker * 64L;
        for (int round = 0; System.nanoTime() < deadline; round++) {
            byte[] data = ScsiCdb.pattern(4096, worker * 1000 + round);
            TestConnection c = TestConnection.loggedIn(
                    daemon.target(), keys(daemon.target(), worker), TestConnection.newIsidQualifier());
            try {
                logins.incrementAndGet();
                ScsiResult w = RawIo.write(c, 0, lba, data, false, ANSWER);
                assertEquals(ScsiResult.GOOD, w.status(), "worker " + worker + " WRITE " + w);
                ScsiResult r = RawIo.read(c, 0, lba, 8, ANSWER);
                assertEquals(ScsiResult.GOOD, r.status(), "worker " + worker + " READ " + r);
                assertArrayEquals(data, r.data(), "worker " + worker + " read back");
                if (round % 4 == 3) {
                    abrupt.incrementAndGet();
                } else {
                    assertTrue(RawIo.logout(c, ANSWER), "logout of worker " + worker);
                }
            } finally {
                c.close();
            }
        }
        return null;
    }

    /** /proc figures once closed connections are reaped: waits (up to 15 s) until the fd count stops exceeding ref. */
    private static RawIo.ProcStats settle(DaemonProcess daemon, RawIo.ProcStats ref) throws Exception {
        Thread.sleep(1000);
        RawIo.ProcStats s = RawIo.ProcStats.of(daemon.pid());
        for (int i = 0; i < 30 && ref != null && (s.fds() > ref.fds() || s.threads() > ref.threads()); i++) {
            Thread.sleep(500);
            s = RawIo.ProcStats.of(daemon.pid());
        }
        return s;
    }

    private static double awaitSessions(int metricsPort, double expected) throws Exception {
        double now = RawIo.metric(metricsPort, "iscsi_sessions");
        for (int i = 0; i < 30 && now != expected; i++) {
            Thread.sleep(500);
            now = RawIo.metric(metricsPort, "iscsi_sessions");
        }
        return now;
    }
}
