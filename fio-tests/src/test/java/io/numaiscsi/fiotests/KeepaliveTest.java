package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * NOP-In keepalive (RFC 7143 11.18/11.19) with nop-in-interval 1s and nop-in-timeout 3s: a silent
 * connection is pinged, answering keeps it alive, not answering gets it closed.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeepaliveTest {

    static final Duration INTERVAL = Duration.ofSeconds(1);
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** The daemon checks its timers once a second. */
    static final Duration TICK = Duration.ofSeconds(1);

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start(
                "KeepaliveTest",
                DaemonProcess.Setup.fileLun(16L << 20)
                        .iscsi("nop-in-interval", "1s")
                        .iscsi("nop-in-timeout", "3s"));
    }

    @AfterEach
    void daemonStillServes() throws Exception {
        TestConnection.assertFreshSessionWorks(daemon);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    /** A target ping: NOP-In, F=1, ITT reserved, TTT not reserved, StatSN not advanced, ExpCmdSN as is. */
    private void assertPing(TestConnection c, TestPdu p) {
        assertNotNull(p, "closed instead of pinging\ntrace: " + c.trace() + "\n" + daemon.logTail());
        assertEquals(TestPdu.NOP_IN, p.opcode(), "not a NOP-In: " + p + "\ntrace: " + c.trace());
        assertEquals(TestPdu.FINAL, p.flags(), "NOP-In flags");
        assertEquals(TestPdu.RESERVED_TAG, p.itt(), "a target ping has ITT 0xffffffff");
        assertNotEquals(TestPdu.RESERVED_TAG, p.int32(20), "a ping asking for an answer has TTT != 0xffffffff");
        assertEquals(0, p.dataSegmentLength());
        assertEquals(c.expStatSn(), p.int32(24), "a ping carries the next StatSN without advancing it");
        assertEquals(c.cmdSn(), p.int32(28), "ExpCmdSN");
    }

    @Test
    void answeredPingsKeepASilentConnectionAlivePastTheTimeout() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            c.ping(); // StatSN now known
            long start = System.nanoTime();
            long end = start + TIMEOUT.plusSeconds(3).toNanos();
            int pings = 0;
            int lastTag = 0;
            long firstPingNanos = -1;
            while (System.nanoTime() < end) {
                TestPdu p;
                try {
                    p = c.readRaw(Duration.ofMillis(Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                } catch (SocketTimeoutException e) {
                    break;
                }
                assertPing(c, p);
                if (firstPingNanos < 0) {
                    firstPingNanos = System.nanoTime() - start;
                }
                assertNotEquals(lastTag, p.int32(20), "each ping has its own TTT");
                lastTag = p.int32(20);
                pings++;
                TestPdu pong = TestPdu.of(TestPdu.NOP_OUT)
                        .immediate()
                        .flags(TestPdu.FINAL)
                        .itt(TestPdu.RESERVED_TAG)
                        .int32(20, p.int32(20))
                        .int32(24, c.cmdSn())
                        .int32(28, c.expStatSn());
                System.arraycopy(p.bhs, 8, pong.bhs, 8, 8);
                c.send(pong);
            }
            assertTrue(
                    firstPingNanos >= 0
                            && firstPingNanos
                                    <= INTERVAL.plus(TICK).plusMillis(500).toNanos(),
                    "first ping after " + firstPingNanos / 1_000_000 + " ms of silence\ntrace: " + c.trace());
            assertTrue(
                    pings >= 2,
                    "only " + pings + " pings in " + TIMEOUT.plusSeconds(3).toSeconds() + " s\ntrace: " + c.trace());
            // well past the 3 s timeout: still served, and the NOP-In reply to our own ping advances StatSN
            int statSnBefore = c.expStatSn();
            c.ping();
            assertEquals(statSnBefore + 1, c.expStatSn(), "StatSN of the reply to a NOP-Out");
        }
    }

    @Test
    void unansweredPingsGetTheConnectionClosedWithinTimeoutPlusTwoSeconds() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            long start = System.nanoTime();
            long limit = TIMEOUT.plusSeconds(2).toNanos();
            int pings = 0;
            while (true) {
                TestPdu p;
                try {
                    p = c.readRaw(Duration.ofMillis(Math.max(1, (start + limit - System.nanoTime()) / 1_000_000)));
                } catch (SocketTimeoutException e) {
                    fail("still open " + limit / 1_000_000 + " ms after login with " + pings
                            + " unanswered pings\ntrace: " + c.trace() + "\n" + daemon.logTail());
                    return;
                }
                if (p == null) {
                    break;
                }
                assertPing(c, p);
                pings++;
            }
            long closedAfter = (System.nanoTime() - start) / 1_000_000;
            assertTrue(pings >= 1, "closed without a ping first\ntrace: " + c.trace());
            assertTrue(
                    closedAfter >= TIMEOUT.toMillis() - 500,
                    "closed after " + closedAfter + " ms, before the " + TIMEOUT.toMillis() + " ms timeout");
        }
    }
}
