package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.numaiscsi.fiotests.TestConnection.Outcome;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Sessions over raw sockets (RFC 7143 sections 4.2.2, 6, 11.10-11.15): reinstatement, TSIH, concurrent
 * sessions, logout, SendTargets, CmdSN ordering and the window, login failures with their status codes,
 * and what a discovery session may not do. The target's queue depth is 8 and it allows two initiators.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionTest {

    static final Duration ANSWER = Duration.ofSeconds(5);
    static final int QUEUE_DEPTH = 8;
    static final String SECOND_INITIATOR = "iqn.2026-11.io.numaiscsi:second-initiator";
    static final String INTRUDER = "iqn.2026-11.io.numaiscsi:not-allowed";

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start(
                "SessionTest",
                DaemonProcess.Setup.fileLun(16L << 20)
                        .iscsi("queue-depth", Integer.toString(QUEUE_DEPTH))
                        .allow(TestConnection.INITIATOR_NAME)
                        .allow(SECOND_INITIATOR));
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

    private Map<String, String> keys() {
        return new LinkedHashMap<>(TestConnection.loginKeys(daemon.target()));
    }

    private static int tsih(TestPdu loginResponse) {
        return loginResponse.byteAt(14) << 8 | loginResponse.byteAt(15);
    }

    private ScsiResult testUnitReady(TestConnection c) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(0, itt, ScsiCdb.testUnitReady(), 0, 0, true));
        ScsiResult r = c.awaitStatus(itt, ANSWER);
        assertEquals(ScsiResult.GOOD, r.status(), "TEST UNIT READY: " + r);
        return r;
    }

    private void assertClosedSoon(TestConnection c, String why) throws IOException {
        Outcome o = c.awaitRejectOrClose(ANSWER);
        assertEquals(Outcome.CLOSED, o, why + "\ntrace: " + c.trace() + "\n" + daemon.logTail());
    }

    @Test
    void loginWithTheSameIsidReinstatesTheSession() throws Exception {
        int isid = TestConnection.newIsidQualifier();
        try (TestConnection first = TestConnection.loggedIn(daemon.target(), keys(), isid)) {
            testUnitReady(first);
            try (TestConnection second = TestConnection.loggedIn(daemon.target(), keys(), isid)) {
                assertNotEquals(
                        tsih(first.loginResponse()), tsih(second.loginResponse()), "a reinstated session is new");
                assertClosedSoon(first, "the target must close the reinstated session's connection");
                second.ping();
                testUnitReady(second);
            }
        }
    }

    @Test
    void concurrentSessionsHaveDistinctNonZeroTsihsAndBothWork() throws Exception {
        try (TestConnection a = TestConnection.loggedIn(daemon.target());
                TestConnection b = TestConnection.loggedIn(daemon.target())) {
            int ta = tsih(a.loginResponse());
            int tb = tsih(b.loginResponse());
            assertNotEquals(0, ta, "TSIH in the final login response");
            assertNotEquals(0, tb, "TSIH in the final login response");
            assertNotEquals(ta, tb, "two sessions, two TSIHs");
            testUnitReady(a);
            testUnitReady(b);
            a.ping();
            b.ping();
        }
    }

    @Test
    void logoutCloseSessionIsAnsweredAndTheTargetCloses() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            testUnitReady(c);
            int itt = c.newItt();
            int statSn = c.expStatSn();
            c.send(TestPdu.of(TestPdu.LOGOUT_REQUEST)
                    .immediate()
                    .flags(TestPdu.FINAL /* reason 0: close session */)
                    .itt(itt)
                    .int32(24, c.cmdSn())
                    .int32(28, c.expStatSn()));
            TestPdu p = c.read(ANSWER);
            assertNotNull(p, "closed without a Logout Response\ntrace: " + c.trace());
            assertEquals(TestPdu.LOGOUT_RESPONSE, p.opcode(), p + "\ntrace: " + c.trace());
            assertEquals(TestPdu.FINAL, p.flags());
            assertEquals(0, p.byteAt(2), "Logout Response: closed successfully");
            assertEquals(itt, p.itt());
            assertEquals(statSn, p.int32(24), "StatSN");
            assertEquals(c.cmdSn(), p.int32(28), "ExpCmdSN");
            assertClosedSoon(c, "the target closes after a successful logout");
        }
    }

    /** One SendTargets Text Request / Response exchange; checks the response header and returns its text. */
    private String sendTargets(TestConnection c, String value) throws IOException {
        int itt = c.newItt();
        int cmdSn = c.nextCmdSn();
        int statSn = c.expStatSn();
        c.send(TestPdu.of(TestPdu.TEXT_REQUEST)
                .flags(TestPdu.FINAL)
                .itt(itt)
                .int32(20, TestPdu.RESERVED_TAG)
                .int32(24, cmdSn)
                .int32(28, c.expStatSn())
                .text(Map.of("SendTargets", value)));
        TestPdu p = c.expect(ANSWER, "Text Response to SendTargets=" + value);
        assertEquals(TestPdu.TEXT_RESPONSE, p.opcode(), p + "\ntrace: " + c.trace());
        assertEquals(TestPdu.FINAL, p.flags(), "F=1, C=0");
        assertEquals(itt, p.itt());
        assertEquals(TestPdu.RESERVED_TAG, p.int32(20), "TTT of a complete answer");
        assertEquals(statSn, p.int32(24), "StatSN");
        assertEquals(cmdSn + 1, p.int32(28), "ExpCmdSN after the Text Request");
        return new String(p.data(), StandardCharsets.UTF_8);
    }

    /**
     * RFC 7143 appendix C: in a Normal session SendTargets with no value reports the session's own target;
     * "All" is for Discovery sessions only ("MUST NOT be supported on an operational session"), so it is
     * answered SendTargets=Reject.
     */
    @Test
    void sendTargetsInANormalSessionReportsItsOwnTargetAndRefusesAll() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            String own = sendTargets(c, "");
            assertTrue(own.startsWith("TargetName=" + daemon.target().iqn() + "\0"), own);
            assertTrue(
                    own.contains("TargetAddress=127.0.0.1:" + daemon.target().port() + ","
                            + c.negotiated().get("TargetPortalGroupTag") + "\0"),
                    own + " / login keys " + c.negotiated());
            assertEquals("SendTargets=Reject\0", sendTargets(c, "All"));
            testUnitReady(c);
        }
    }

    @Test
    void commandsAheadOfExpCmdSnWaitForTheGapAndRunInCmdSnOrder() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            int first = c.newItt();
            int second = c.newItt();
            TestPdu n = c.scsiCommand(0, first, ScsiCdb.testUnitReady(), 0, 0, true);
            TestPdu n1 = c.scsiCommand(0, second, ScsiCdb.testUnitReady(), 0, 0, true);
            int cmdSn = n.int32(24);
            assertEquals(cmdSn + 1, n1.int32(24));
            c.send(n1);
            try {
                TestPdu early = c.read(Duration.ofMillis(300));
                fail("CmdSN " + (cmdSn + 1) + " ran before CmdSN " + cmdSn + " arrived: " + early);
            } catch (SocketTimeoutException expected) {
                // held until the gap fills
            }
            c.send(n);
            TestPdu a = c.expect(ANSWER, "the first response");
            TestPdu b = c.expect(ANSWER, "the second response");
            assertEquals(
                    List.of(first, second), List.of(a.itt(), b.itt()), "responses in CmdSN order\ntrace: " + c.trace());
            for (TestPdu p : List.of(a, b)) {
                assertEquals(TestPdu.SCSI_RESPONSE, p.opcode(), p.toString());
                assertEquals(ScsiResult.GOOD, p.byteAt(3));
            }
            assertEquals(a.int32(24) + 1, b.int32(24), "consecutive StatSN");
            assertEquals(cmdSn + 2, b.int32(28), "ExpCmdSN once both ran");
        }
    }

    @Test
    void maxCmdSnNeverDecreasesAndTheWindowIsTheQueueDepth() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            TestPdu login = c.loginResponse();
            assertEquals(login.int32(28) + QUEUE_DEPTH - 1, login.int32(32), "MaxCmdSN in the final login response");
            int maxCmdSn = login.int32(32);
            int expCmdSn = login.int32(28);
            List<Integer> itts = new ArrayList<>();
            // fill the whole window at once, three times over
            for (int round = 0; round < 3; round++) {
                int window = maxCmdSn - c.cmdSn() + 1;
                assertTrue(window >= 1 && window <= QUEUE_DEPTH, "window " + window);
                for (int i = 0; i < window; i++) {
                    int itt = c.newItt();
                    itts.add(itt);
                    c.send(c.scsiCommand(0, itt, ScsiCdb.testUnitReady(), 0, 0, true));
                }
                for (int i = 0; i < window; i++) {
                    TestPdu p = c.read(ANSWER);
                    assertNotNull(p, "closed\ntrace: " + c.trace());
                    assertEquals(TestPdu.SCSI_RESPONSE, p.opcode(), p + "\ntrace: " + c.trace());
                    assertEquals(ScsiResult.GOOD, p.byteAt(3), p.toString());
                    assertTrue(
                            p.int32(32) - maxCmdSn >= 0,
                            "MaxCmdSN went from " + maxCmdSn + " to " + p.int32(32) + "\ntrace: " + c.trace());
                    assertTrue(p.int32(28) - expCmdSn >= 0, "ExpCmdSN went back\ntrace: " + c.trace());
                    assertTrue(p.int32(32) - p.int32(28) + 1 <= QUEUE_DEPTH, "window beyond queue depth: " + p);
                    maxCmdSn = p.int32(32);
                    expCmdSn = p.int32(28);
                }
            }
            assertEquals(c.cmdSn(), expCmdSn, "ExpCmdSN after " + itts.size() + " commands");
            // the last response went out while its own command still counted; a ping sees the idle window
            c.ping();
            TestPdu idle = c.lastReceived();
            assertEquals(TestPdu.NOP_IN, idle.opcode());
            assertEquals(expCmdSn, idle.int32(28), "ExpCmdSN of the NOP-In");
            assertEquals(
                    expCmdSn + QUEUE_DEPTH - 1, idle.int32(32), "an idle session's window is the queue depth again");
        }
    }

    /**
     * An initiator ignores a MaxCmdSN below the one it already holds (RFC 7143 4.2.2.1), so the target must
     * still take every CmdSN up to the MaxCmdSN it advertised, even while an immediate command runs.
     */
    @Test
    void anImmediateCommandDoesNotShrinkTheAdvertisedWindow() throws Exception {
        Map<String, String> keys = keys();
        keys.put("ImmediateData", "No");
        keys.put("InitialR2T", "Yes");
        try (TestConnection c = TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier())) {
            int advertised = c.loginResponse().int32(32);
            int write = c.newItt();
            TestPdu cmd = TestPdu.of(TestPdu.SCSI_COMMAND)
                    .immediate()
                    .flags(TestPdu.FINAL | TestConnection.WRITE_BIT | 1)
                    .lun(0)
                    .itt(write)
                    .int32(20, 512)
                    .int32(24, c.cmdSn())
                    .int32(28, c.expStatSn());
            byte[] cdb = ScsiCdb.write10(8, 1);
            for (int i = 0; i < cdb.length; i++) {
                cmd.byteAt(32 + i, cdb[i]);
            }
            c.send(cmd);
            TestPdu r2t = c.expect(ANSWER, "R2T of the immediate WRITE");
            assertEquals(TestPdu.R2T, r2t.opcode(), r2t.toString());
            // the whole advertised window, while the immediate WRITE waits for its data
            List<Integer> itts = new ArrayList<>();
            while (c.cmdSn() - advertised <= 0) {
                int itt = c.newItt();
                itts.add(itt);
                c.send(c.scsiCommand(0, itt, ScsiCdb.testUnitReady(), 0, 0, true));
            }
            assertEquals(QUEUE_DEPTH, itts.size());
            int lowest = r2t.int32(32);
            for (int itt : itts) {
                ScsiResult r = c.awaitStatus(itt, ANSWER);
                assertEquals(ScsiResult.GOOD, r.status(), r.toString());
                lowest = r.statusPdu().int32(32) - lowest < 0 ? r.statusPdu().int32(32) : lowest;
            }
            assertTrue(
                    lowest - advertised >= 0,
                    "MaxCmdSN went down to " + lowest + " after " + advertised + " was advertised\ntrace: "
                            + c.trace());
            c.send(c.dataOut(0, write, r2t.int32(20), 0, 0, new byte[512], true));
            assertEquals(ScsiResult.GOOD, c.awaitStatus(write, ANSWER).status());
        }
    }

    @Test
    void loginRequestInFullFeaturePhaseIsRejected() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            TestPdu login = c.loginRequest(true, keys());
            c.send(login);
            TestPdu p;
            try {
                p = c.read(ANSWER);
            } catch (SocketTimeoutException e) {
                fail("no answer to a Login Request in full feature phase\ntrace: " + c.trace());
                return;
            }
            if (p != null) {
                assertEquals(TestPdu.REJECT, p.opcode(), p + "\ntrace: " + c.trace());
                assertEquals(0x04, p.byteAt(2), "Reject reason: protocol error");
                assertArrayEquals(login.bhs, p.data(), "the Reject carries the rejected BHS");
                assertTrue(
                        EnumSet.of(Outcome.CLOSED, Outcome.ANSWERED).contains(c.pingOrClosed()),
                        "after the Reject: " + c.trace());
            }
        }
    }

    /** Logs in with these keys, expects a login reject with this status, then the close. */
    private void assertLoginRefused(Map<String, String> keys, int statusClass, int statusDetail) throws IOException {
        try (TestConnection c = TestConnection.open(daemon.target())) {
            TestPdu p = c.attemptLogin(keys, TestConnection.newIsidQualifier());
            assertNotNull(p, "no Login Response\ntrace: " + c.trace());
            assertEquals(TestPdu.LOGIN_RESPONSE, p.opcode(), p.toString());
            assertEquals(
                    List.of(statusClass, statusDetail),
                    List.of(p.byteAt(36), p.byteAt(37)),
                    "Status-Class, Status-Detail for " + keys + "\ntrace: " + c.trace());
            assertEquals(0, p.flags() & TestPdu.TRANSIT, "T=0 on a failed login");
            assertEquals(0, tsih(p), "no TSIH for a failed login");
            assertClosedSoon(c, "the target closes after a failed login");
        }
    }

    @Test
    void initiatorNotInTheAllowListIsNotAuthorized() throws Exception {
        Map<String, String> keys = keys();
        keys.put("InitiatorName", INTRUDER);
        assertLoginRefused(keys, 2, 2);
        keys.put("InitiatorName", SECOND_INITIATOR);
        try (TestConnection allowed =
                TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier())) {
            allowed.ping();
        }
    }

    /** 02/02 like a forbidden target, not 02/03: an unauthenticated peer must not learn which names exist. */
    @Test
    void unknownTargetNameIsRefusedAsNotAuthorized() throws Exception {
        Map<String, String> keys = keys();
        keys.put("TargetName", "iqn.2026-11.io.numaiscsi:no-such-disk");
        assertLoginRefused(keys, 2, 2);
    }

    @Test
    void missingInitiatorNameIsAMissingParameter() throws Exception {
        Map<String, String> keys = keys();
        keys.remove("InitiatorName");
        assertLoginRefused(keys, 2, 7);
    }

    @Test
    void scsiCommandInADiscoverySessionIsRejected() throws Exception {
        Map<String, String> keys = keys();
        keys.remove("TargetName");
        keys.put("SessionType", "Discovery");
        try (TestConnection c = TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier())) {
            TestPdu tur = c.scsiCommand(0, c.newItt(), ScsiCdb.testUnitReady(), 0, 0, true);
            c.send(tur);
            TestPdu p = c.read(ANSWER);
            assertNotNull(p, "closed instead of a Reject\ntrace: " + c.trace());
            assertEquals(TestPdu.REJECT, p.opcode(), p + "\ntrace: " + c.trace());
            assertTrue(
                    p.byteAt(2) == 0x04 || p.byteAt(2) == 0x05,
                    "Reject reason protocol error or command not supported: " + p);
            assertArrayEquals(tur.bhs, p.data(), "the Reject carries the rejected BHS");
            // the discovery session itself still works
            int itt = c.newItt();
            c.send(TestPdu.of(TestPdu.TEXT_REQUEST)
                    .immediate()
                    .flags(TestPdu.FINAL)
                    .itt(itt)
                    .int32(20, TestPdu.RESERVED_TAG)
                    .int32(24, c.cmdSn())
                    .int32(28, c.expStatSn())
                    .text(Map.of("SendTargets", "All")));
            TestPdu text = c.read(ANSWER);
            assertNotNull(text);
            assertEquals(TestPdu.TEXT_RESPONSE, text.opcode(), text + "\ntrace: " + c.trace());
            assertEquals(itt, text.itt());
            assertTrue(
                    text.textKeys().containsKey("TargetName"), text.textKeys().toString());
        }
    }
}
