package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * LUN 1's backing store turns slow ({@code inject-latency}, a test-only LUN key) while several sessions queue reads and
 * writes on it and fire ABORT TASK and LOGICAL UNIT RESET at them. Meanwhile another session keeps using LUN 0 (no
 * latency), whose every command must answer within {@link #OTHER_LUN_BOUND}; every task management request must be
 * answered within {@link #TMF_BOUND}; afterwards LUN 1 serves again (after its unit attention) and the daemon runs.
 */
@Tag("it")
class SlowLunStormTest {
    static final Duration LATENCY = Duration.ofMillis(300);
    static final Duration STORM = Duration.ofSeconds(15);
    static final Duration OTHER_LUN_BOUND = Duration.ofSeconds(1);
    static final Duration TMF_BOUND = Duration.ofSeconds(10);
    static final int STORM_SESSIONS = 4;
    static final int QUEUED_PER_ROUND = 8;
    static final int ABORT_TASK = 1;
    static final int LOGICAL_UNIT_RESET = 5;
    static final int SLOW_LUN = 1;

    @Test
    void otherLunKeepsServingAndSlowLunRecovers() throws Exception {
        runStorm("SlowLunStormTest", true);
    }

    /** As above with ABORT TASK storms only (no LUN RESET): passes today. */
    @Test
    void otherLunKeepsServingThroughAbortStorms() throws Exception {
        runStorm("SlowLunStormTest-aborts", false);
    }

    private void runStorm(String name, boolean resets) throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .lun("{id: 1, backing: ram, size: 16M, block-size: 512, inject-latency: " + LATENCY.toMillis() + "ms}");
        try (DaemonProcess daemon = DaemonProcess.start(name, setup)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong probes = new AtomicLong();
            AtomicLong worstProbeNanos = new AtomicLong();
            AtomicInteger tmfs = new AtomicInteger();
            AtomicInteger queued = new AtomicInteger();
            AtomicLong worstTmfNanos = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(STORM_SESSIONS + 1);
            List<Future<?>> work = new ArrayList<>();
            try {
                work.add(pool.submit(() -> probeOtherLun(daemon, stop, probes, worstProbeNanos)));
                for (int s = 0; s < STORM_SESSIONS; s++) {
                    int seed = s;
                    work.add(pool.submit(() ->
                            stormRounds(daemon, seed, stop, tmfs, queued, worstTmfNanos, Integer.MAX_VALUE, resets)));
                }
                Thread.sleep(STORM.toMillis());
                stop.set(true);
                for (Future<?> f : work) {
                    f.get(60, TimeUnit.SECONDS); // rethrows a failed assertion of any worker
                }
            } finally {
                stop.set(true);
                pool.shutdownNow();
            }
            String figures = "storm " + STORM.toSeconds() + " s: " + queued.get() + " commands queued on the slow LUN, "
                    + tmfs.get() + " TMF requests (worst answer " + worstTmfNanos.get() / 1_000_000 + " ms), "
                    + probes.get() + " commands on the other LUN (worst " + worstProbeNanos.get() / 1_000_000 + " ms)";
            System.out.println(name + ": " + figures);
            assertTrue(probes.get() >= 20, "the other LUN answered only " + probes.get() + " commands; " + figures);
            assertTrue(tmfs.get() >= STORM_SESSIONS, figures);

            // recovery: the slow LUN completes I/O again (after its unit attention), with data intact
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                assertEquals(
                        ScsiResult.GOOD,
                        RawIo.testUnitReady(c, SLOW_LUN, TMF_BOUND).status());
                byte[] data = ScsiCdb.pattern(4096, 99);
                assertEquals(
                        ScsiResult.GOOD,
                        RawIo.write(c, SLOW_LUN, 100, data, true, TMF_BOUND).status());
                ScsiResult r = RawIo.read(c, SLOW_LUN, 100, 8, TMF_BOUND);
                assertEquals(ScsiResult.GOOD, r.status(), r.toString());
                assertArrayEquals(data, r.data());
            }
            TestConnection.assertFreshSessionWorks(daemon);
        }
    }

    /** The smallest storm: one session aborts one slow READ, then its next command on that LUN must complete. */
    @Test
    void commandAfterAnAbortedSlowTaskCompletes() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .lun("{id: 1, backing: ram, size: 16M, block-size: 512, inject-latency: " + LATENCY.toMillis() + "ms}");
        try (DaemonProcess daemon = DaemonProcess.start("SlowLunStormTest-abort", setup);
                TestConnection c = TestConnection.loggedIn(daemon.target())) {
            assertEquals(
                    ScsiResult.GOOD, RawIo.testUnitReady(c, SLOW_LUN, TMF_BOUND).status());
            int read = c.newItt();
            int readCmdSn = c.cmdSn();
            c.send(c.scsiCommand(SLOW_LUN, read, ScsiCdb.read10(0, 8), 4096, TestConnection.READ_BIT, true));
            tmf(c, daemon, ABORT_TASK, read, readCmdSn, new AtomicInteger(), new AtomicLong());
            ScsiResult r = RawIo.read(c, SLOW_LUN, 8, 8, TMF_BOUND);
            assertEquals(ScsiResult.GOOD, r.status(), "READ after the aborted one: " + r);
        }
    }

    /** Session A resets the slow LUN while session B has a READ in flight there; B's next command must complete. */
    @Test
    void commandAfterAnotherSessionsLunResetCompletes() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .lun("{id: 1, backing: ram, size: 16M, block-size: 512, inject-latency: " + LATENCY.toMillis() + "ms}");
        try (DaemonProcess daemon = DaemonProcess.start("SlowLunStormTest-reset", setup);
                TestConnection a = TestConnection.loggedIn(daemon.target());
                TestConnection b = TestConnection.loggedIn(daemon.target())) {
            assertEquals(
                    ScsiResult.GOOD, RawIo.testUnitReady(a, SLOW_LUN, TMF_BOUND).status());
            assertEquals(
                    ScsiResult.GOOD, RawIo.testUnitReady(b, SLOW_LUN, TMF_BOUND).status());
            int read = b.newItt();
            b.send(b.scsiCommand(SLOW_LUN, read, ScsiCdb.read10(0, 8), 4096, TestConnection.READ_BIT, true));
            tmf(a, daemon, LOGICAL_UNIT_RESET, TestPdu.RESERVED_TAG, a.cmdSn(), new AtomicInteger(), new AtomicLong());
            ScsiResult r = RawIo.testUnitReady(b, SLOW_LUN, TMF_BOUND);
            assertEquals(ScsiResult.GOOD, r.status(), "B's TEST UNIT READY after A's reset: " + r);
            assertEquals(
                    ScsiResult.GOOD, RawIo.read(b, SLOW_LUN, 8, 8, TMF_BOUND).status());
        }
    }

    /** One session, no resets: queue 8 slow commands, ABORT TASK every other one; twice; then a command completes. */
    @Test
    void abortsOfHalfAQueueTwice() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .lun("{id: 1, backing: ram, size: 16M, block-size: 512, inject-latency: " + LATENCY.toMillis() + "ms}");
        try (DaemonProcess daemon = DaemonProcess.start("SlowLunStormTest-queue", setup)) {
            AtomicBoolean stop = new AtomicBoolean();
            stormRounds(daemon, 1, stop, new AtomicInteger(), new AtomicInteger(), new AtomicLong(), 2, false);
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                assertEquals(
                        ScsiResult.GOOD,
                        RawIo.testUnitReady(c, SLOW_LUN, TMF_BOUND).status());
            }
        }
    }

    /** READ(10) of 4 KiB from LUN 0 in a loop: each must be answered within the bound despite the storm next door. */
    private static Void probeOtherLun(DaemonProcess daemon, AtomicBoolean stop, AtomicLong probes, AtomicLong worst)
            throws IOException, InterruptedException {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            RawIo.testUnitReady(c, 0, OTHER_LUN_BOUND);
            while (!stop.get()) {
                long t0 = System.nanoTime();
                ScsiResult r = RawIo.read(c, 0, 8, 8, OTHER_LUN_BOUND.plusSeconds(4));
                long took = System.nanoTime() - t0;
                worst.accumulateAndGet(took, Math::max);
                assertTrue(r.status() == ScsiResult.GOOD || r.senseKey() == ScsiResult.UNIT_ATTENTION, r.toString());
                assertTrue(
                        took <= OTHER_LUN_BOUND.toNanos(),
                        "LUN 0 READ took " + took / 1_000_000 + " ms while LUN 1 was slow\n" + daemon.logTail());
                probes.incrementAndGet();
                Thread.sleep(50);
            }
        }
        return null;
    }

    /**
     * Rounds of: queue reads and writes on the slow LUN, ABORT TASK half of them, sometimes LOGICAL UNIT RESET; every TMF
     * answer within the bound. Statuses of the queued commands are drained but not judged (aborted ones get none).
     */
    private static Void stormRounds(
            DaemonProcess daemon,
            int seed,
            AtomicBoolean stop,
            AtomicInteger tmfs,
            AtomicInteger queued,
            AtomicLong worst,
            int maxRounds,
            boolean resets)
            throws IOException {
        byte[] block = ScsiCdb.pattern(4096, seed);
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            int round = 0;
            while (!stop.get() && round < maxRounds) {
                int[] itts = new int[QUEUED_PER_ROUND];
                int[] cmdSns = new int[QUEUED_PER_ROUND];
                for (int i = 0; i < QUEUED_PER_ROUND; i++) {
                    itts[i] = c.newItt();
                    cmdSns[i] = c.cmdSn();
                    long lba = (seed * 4096L + round * 64L + i * 8L) % (16L * 2048 - 8);
                    if (i % 2 == 0) {
                        c.send(c.scsiCommand(
                                SLOW_LUN, itts[i], ScsiCdb.read10(lba, 8), 4096, TestConnection.READ_BIT, true));
                    } else {
                        c.send(c.scsiCommand(
                                        SLOW_LUN,
                                        itts[i],
                                        ScsiCdb.write10(lba, 8),
                                        4096,
                                        TestConnection.WRITE_BIT,
                                        true)
                                .data(block));
                    }
                    queued.incrementAndGet();
                }
                for (int i = 0; i < QUEUED_PER_ROUND; i += 2) {
                    tmf(c, daemon, ABORT_TASK, itts[i], cmdSns[i], tmfs, worst);
                }
                if (resets && round % 3 == seed % 3) {
                    tmf(c, daemon, LOGICAL_UNIT_RESET, TestPdu.RESERVED_TAG, c.cmdSn(), tmfs, worst);
                }
                round++;
            }
            c.ping(); // the session itself survived its storm
        }
        return null;
    }

    private static void tmf(
            TestConnection c,
            DaemonProcess daemon,
            int function,
            int referencedItt,
            int refCmdSn,
            AtomicInteger tmfs,
            AtomicLong worst)
            throws IOException {
        int itt = c.newItt();
        long t0 = System.nanoTime();
        c.send(c.taskManagement(function, SLOW_LUN, itt, referencedItt, refCmdSn));
        TestPdu p = RawIo.readFor(c, itt, t0 + TMF_BOUND.toNanos());
        long took = System.nanoTime() - t0;
        worst.accumulateAndGet(took, Math::max);
        assertEquals(TestPdu.TASK_MGMT_RESPONSE, p.opcode(), "answer to TMF " + function + ": " + p);
        int response = p.byteAt(2);
        assertTrue(
                response == 0 || (function == ABORT_TASK && response == 1),
                "TMF " + function + " response " + response + "\n" + daemon.logTail());
        tmfs.incrementAndGet();
    }
}
