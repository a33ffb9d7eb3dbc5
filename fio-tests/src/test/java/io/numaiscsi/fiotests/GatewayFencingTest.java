package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.rbd.CephTestCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A gateway pair over one RBD image (ALUA, shared reservations in RADOS) whose gateway A is stalled with SIGSTOP, not
 * killed, while a WRITE of pattern X waits in its socket; the other side moves on through gateway B and writes Y over
 * the same blocks; then A is continued. Nothing A received before it was fenced may reach the image: after every
 * round the image (read with {@code rbd export}, not through a target) holds Y.
 * <ul>
 *   <li><b>Failover</b> (what dm-multipath does): one initiator with a session to each gateway. After 6 s without an
 *   answer (beyond a 5 s replacement timeout) it activates B's path with SET TARGET PORT GROUPS, as Linux's ALUA
 *   handler does, and writes Y through B. Stalls shorter than that end with X answered GOOD and no failover.</li>
 *   <li><b>Reservations</b> (what fence_scsi does): initiator 1 holds a WRITE EXCLUSIVE - REGISTRANTS ONLY
 *   reservation through A; initiator 2 PREEMPTs AND ABORTs it through B, moves the image to B and writes Y. X never
 *   gets GOOD after the PREEMPT AND ABORT got GOOD.</li>
 * </ul>
 * {@code -Dit.fence.stalls=2,6,20,40} (the default) and {@code -Dit.fence.rounds=1} (default; the long form is 20)
 * choose the rounds; each round's takeover time is printed and written to {@code it-logs/GatewayFencingTest-rounds.txt}.
 */
@Tag("it")
class GatewayFencingTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:fenced";
    static final String ONE = "iqn.2026-11.io.numaiscsi:node-one";
    static final String TWO = "iqn.2026-11.io.numaiscsi:node-two";
    static final String IMAGE = "fenced";
    static final long LBA = 2048;
    static final int BYTES = 8192;
    static final Duration LIMIT = Duration.ofSeconds(30);
    /** How long X's status is waited for after A continued (an aborted task gets none). */
    static final Duration X_LIMIT = Duration.ofSeconds(15);
    /** How long the initiator waits for A before it fails over (a 5 s replacement timeout and the detection). */
    static final Duration FAILOVER_AFTER = Duration.ofSeconds(6);

    static final int WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 5;

    static CephTestCluster cluster;
    static ConfiguredDaemon a;
    static ConfiguredDaemon b;
    static Path rounds;

    @BeforeAll
    static void startPair() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        cluster = CephTestCluster.start(
                DaemonProcess.logDir().resolveSibling("it-ceph").resolve("GatewayFencingTest"),
                Integer.getInteger("it.fence.cephPort", 17300));
        cluster.createImage(IMAGE, 16L << 20); // the default features: exclusive-lock among them
        a = ConfiguredDaemon.start("GatewayFencingTest-A", config(1, "active-optimized", 2, "active-non-optimized"));
        b = ConfiguredDaemon.start("GatewayFencingTest-B", config(2, "active-non-optimized", 1, "active-optimized"));
        rounds = DaemonProcess.logDir().resolve("GatewayFencingTest-rounds.txt");
        Files.writeString(rounds, "scenario stall_s round takeover_ms preempt_ms x_outcome image\n");
    }

    @AfterAll
    static void stopPair() throws Exception {
        if (a != null) {
            signal(a, "CONT");
            a.close();
        }
        if (b != null) {
            b.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String config(int group, String state, int peer, String peerState) {
        String client = "pool: " + CephTestCluster.POOL + ", ceph-conf: " + cluster.conf() + ", rbd-user: admin,"
                + " keyring: " + cluster.adminKeyring();
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    alua: {group: " + group + ", state: " + state + ", peers: [{group: " + peer + ", state: "
                + peerState + "}]}\n"
                + "    shared-reservations: {backend: rados, " + client + "}\n"
                + "    luns:\n"
                + "      - {id: 0, backing: rbd, image: " + IMAGE + ", " + client + "}\n";
    }

    private static List<Integer> stalls() {
        List<Integer> s = new ArrayList<>();
        for (String v : System.getProperty("it.fence.stalls", "2,6,20,40").split(",")) {
            s.add(Integer.parseInt(v.strip()));
        }
        return s;
    }

    private static int roundsEach() {
        return Integer.getInteger("it.fence.rounds", 1);
    }

    /** No reservation left by another test: it would make the rounds' commands conflict. */
    private static void clearReservations() throws Exception {
        try (TestConnection twoViaB = login(b, TWO)) {
            assertGood(settle(() -> prOut(twoViaB, 6, 0, 0, 0xB2)), "2 registers");
            assertGood(settle(() -> prOut(twoViaB, 3, 0, 0xB2, 0)), "2 clears");
        }
    }

    /**
     * Each round logs in afresh: a session the test does not read while it waits elsewhere would miss the gateway's
     * keepalive pings and be dropped after 30 s.
     */
    @Test
    void aStalledGatewayNeverWritesAfterFailover() throws Exception {
        clearReservations();
        for (int stall : stalls()) {
            for (int round = 1; round <= roundsEach(); round++) {
                try (TestConnection viaA = login(a, ONE);
                        TestConnection viaB = login(b, ONE)) {
                    failoverRound(viaA, viaB, stall, round);
                }
            }
        }
    }

    private void failoverRound(TestConnection viaA, TestConnection viaB, int stall, int round) throws Exception {
        String what = "failover, stall " + stall + " s, round " + round;
        assertGood(settle(() -> stpg(viaA, 1)), what + ": the image moves to A");
        assertGood(settle(() -> write(viaA, 'p')), what + ": A writes");
        long t0 = System.nanoTime();
        signal(a, "STOP");
        int itt = sendWrite(viaA, 'X');
        if (stall < FAILOVER_AFTER.toSeconds()) {
            sleepUntil(t0, Duration.ofSeconds(stall));
            signal(a, "CONT");
            ScsiResult x = viaA.awaitStatusOrNull(itt, LIMIT);
            assertTrue(x != null && x.status() == 0, what + ": no failover, X answered " + x);
            assertArrayEquals(pattern('X'), imageBlocks(), what + ": the image holds X");
            record("failover", stall, round, 0, 0, "GOOD, no failover", "X");
            return;
        }
        sleepUntil(t0, FAILOVER_AFTER);
        long moved = System.nanoTime();
        assertGood(settle(() -> stpg(viaB, 2)), what + ": SET TARGET PORT GROUPS through B");
        long takeoverMs = (System.nanoTime() - moved) / 1_000_000;
        assertGood(settle(() -> write(viaB, 'Y')), what + ": Y through B");
        sleepUntil(t0, Duration.ofSeconds(stall));
        signal(a, "CONT");
        ScsiResult x = viaA.awaitStatusOrNull(itt, X_LIMIT);
        assertArrayEquals(pattern('Y'), imageBlocks(), what + ": a stale write landed over Y (X answered " + x + ")");
        assertTrue(x == null || x.status() != 0, what + ": the stalled gateway answered X with GOOD: " + x);
        record("failover", stall, round, takeoverMs, 0, outcome(x), "Y");
    }

    @Test
    void aPreemptedInitiatorNeverWritesThroughAStalledGateway() throws Exception {
        for (int stall : stalls()) {
            for (int round = 1; round <= roundsEach(); round++) {
                try (TestConnection oneViaA = login(a, ONE);
                        TestConnection twoViaB = login(b, TWO)) {
                    preemptRound(oneViaA, twoViaB, stall, round);
                }
            }
        }
    }

    private void preemptRound(TestConnection oneViaA, TestConnection twoViaB, int stall, int round) throws Exception {
        String what = "preempt, stall " + stall + " s, round " + round;
        assertGood(settle(() -> prOut(twoViaB, 6, 0, 0, 0xB2)), what + ": 2 registers");
        assertGood(settle(() -> prOut(twoViaB, 3, 0, 0xB2, 0)), what + ": 2 clears what the last round left");
        assertGood(settle(() -> stpg(oneViaA, 1)), what + ": the image moves to A");
        assertGood(settle(() -> prOut(oneViaA, 6, 0, 0, 0xA1)), what + ": 1 registers through A");
        assertGood(settle(() -> prOut(twoViaB, 6, 0, 0, 0xB2)), what + ": 2 registers through B");
        assertGood(settle(() -> prOut(oneViaA, 1, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, 0xA1, 0)), what + ": 1 reserves");
        assertGood(settle(() -> write(oneViaA, 'p')), what + ": 1 writes through A");

        long t0 = System.nanoTime();
        signal(a, "STOP");
        int itt = sendWrite(oneViaA, 'X');
        Thread resume = new Thread(
                () -> {
                    try {
                        sleepUntil(t0, Duration.ofSeconds(stall));
                        signal(a, "CONT");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                "continue A");
        resume.start();
        long preempting = System.nanoTime();
        assertGood(
                settle(() -> prOut(twoViaB, 5, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, 0xB2, 0xA1)),
                what + ": PREEMPT AND ABORT through B");
        long preemptMs = (System.nanoTime() - preempting) / 1_000_000;
        // X's status, if A sent one before the PREEMPT AND ABORT was done, is already here (loopback)
        boolean answeredBefore = oneViaA.pendingBytes() > 0;
        ScsiResult early = answeredBefore ? oneViaA.awaitStatusOrNull(itt, Duration.ofMillis(200)) : null;

        long moved = System.nanoTime();
        assertGood(settle(() -> stpg(twoViaB, 2)), what + ": SET TARGET PORT GROUPS through B");
        long takeoverMs = (System.nanoTime() - moved) / 1_000_000;
        assertGood(settle(() -> write(twoViaB, 'Y')), what + ": Y through B");
        resume.join();
        ScsiResult x = early != null ? early : oneViaA.awaitStatusOrNull(itt, X_LIMIT);
        assertArrayEquals(pattern('Y'), imageBlocks(), what + ": a stale write landed over Y (X answered " + x + ")");
        assertFalse(
                early == null && x != null && x.status() == 0,
                what + ": the preempted initiator's WRITE got GOOD after the PREEMPT AND ABORT did: " + x);
        record(
                "preempt",
                stall,
                round,
                takeoverMs,
                preemptMs,
                outcome(x) + (early != null ? " (before the preempt)" : ""),
                "Y");
    }

    // ---- commands ----

    private static TestConnection login(ConfiguredDaemon d, String initiator) throws IOException {
        IscsiTarget t = d.target(IQN);
        Map<String, String> keys = TestConnection.loginKeys(t);
        keys.put("InitiatorName", initiator);
        TestConnection c = TestConnection.loggedIn(t, keys, TestConnection.newIsidQualifier());
        assertEquals("Yes", c.negotiated().getOrDefault("ImmediateData", "Yes"), "the WRITE goes out in one PDU");
        return c;
    }

    /** SET TARGET PORT GROUPS asking for {@code group} to be active/optimized. */
    private static ScsiResult stpg(TestConnection c, int group) throws IOException {
        byte[] cdb = {(byte) 0xA4, 0x0A, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0};
        byte[] list = {0, 0, 0, 0, 0, 0, (byte) (group >> 8), (byte) group};
        return RawIo.write(c, 0, cdb, list, LIMIT);
    }

    private static ScsiResult prOut(TestConnection c, int serviceAction, int type, long key, long serviceActionKey)
            throws IOException {
        byte[] cdb = {0x5F, (byte) serviceAction, (byte) type, 0, 0, 0, 0, 0, 24, 0};
        byte[] list = new byte[24];
        ByteBuffer.wrap(list).putLong(key).putLong(serviceActionKey);
        return RawIo.write(c, 0, cdb, list, LIMIT);
    }

    private static ScsiResult write(TestConnection c, char fill) throws IOException {
        return RawIo.write(c, 0, LBA, pattern(fill), false, LIMIT);
    }

    /** Sends a WRITE of {@code fill} with its data (immediate) and returns its task tag; the status is read later. */
    private static int sendWrite(TestConnection c, char fill) throws IOException {
        int itt = c.newItt();
        TestPdu cmd = c.scsiCommand(0, itt, ScsiCdb.write10(LBA, BYTES / 512), BYTES, TestConnection.WRITE_BIT, true);
        cmd.data(pattern(fill));
        c.send(cmd);
        return itt;
    }

    private static byte[] pattern(char fill) {
        byte[] b = new byte[BYTES];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    /**
     * Runs {@code command} until it is not refused for a passing reason: a unit attention (the image moved, a
     * reservation changed), or the unit moving between gateways or a fenced gateway reconnecting (NOT READY 04/0A).
     */
    private static ScsiResult settle(Callable<ScsiResult> command) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            ScsiResult r = command.call();
            boolean attention = r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == ScsiResult.UNIT_ATTENTION;
            boolean moving = r.status() == ScsiResult.CHECK_CONDITION
                    && r.senseKey() == 0x2
                    && r.asc() == 0x04
                    && (r.ascq() == 0x0A || r.ascq() == 0x00);
            if (!(attention || moving) || System.nanoTime() > deadline) {
                return r;
            }
            if (moving) {
                Thread.sleep(100);
            }
        }
    }

    private static void assertGood(ScsiResult r, String what) {
        assertEquals(0, r.status(), what + ": " + r);
    }

    private static String outcome(ScsiResult x) {
        if (x == null) {
            return "no status (aborted, or the connection closed)";
        }
        return x.status() == 0
                ? "GOOD"
                : String.format("status %02x sense %x/%02x/%02x", x.status(), x.senseKey(), x.asc(), x.ascq());
    }

    // ---- the stall, the image, the record ----

    private static void signal(ConfiguredDaemon d, String signal) throws IOException, InterruptedException {
        d.signal(signal);
    }

    private static void sleepUntil(long t0, Duration after) throws InterruptedException {
        long left = t0 + after.toNanos() - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    /** The blocks the rounds write, as the cluster holds them ({@code rbd export}, not through a target). */
    private static byte[] imageBlocks() throws IOException {
        Path out = Files.createTempFile(DaemonProcess.logDir(), "fenced-", ".img");
        try {
            Files.delete(out);
            cluster.rbd("export", CephTestCluster.POOL + "/" + IMAGE, out.toString());
            byte[] all = Files.readAllBytes(out);
            return Arrays.copyOfRange(all, (int) (LBA * 512), (int) (LBA * 512) + BYTES);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void record(
            String scenario, int stall, int round, long takeoverMs, long preemptMs, String x, String image)
            throws IOException {
        String line = String.join(
                " ",
                scenario,
                Integer.toString(stall),
                Integer.toString(round),
                Long.toString(takeoverMs),
                Long.toString(preemptMs),
                "\"" + x + "\"",
                image);
        System.out.println("GatewayFencingTest: " + line);
        Files.writeString(rounds, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }
}
