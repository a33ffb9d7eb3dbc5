package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code limits:} on a running daemon: sessions per initiator and per daemon (03/02 beyond, one log line, room
 * again after a session ends), the write-buffer budget of a session (a second write is parked: its R2T comes only
 * when the first write releases its buffer, and both complete), and the CmdSN window bounding outstanding commands.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LimitsTest {
    static final Duration ANSWER = Duration.ofSeconds(5);
    static final Duration QUIET = Duration.ofMillis(500);
    static final String IQN = IscsiTarget.DEFAULT_IQN;
    static final int QUEUE_DEPTH = 8;
    static final int WRITE = 64 * 1024;
    static final int BLOCK = 512;
    static final int PDU = 32 * 1024;

    private ConfiguredDaemon daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = ConfiguredDaemon.start(
                "LimitsTest",
                ""
                        + "limits: {max-sessions: 4, max-sessions-per-initiator: 2, write-buffer-per-session: 64K}\n"
                        + "iscsi: {initial-r2t: true, immediate-data: false, queue-depth: " + QUEUE_DEPTH + "}\n"
                        + "targets:\n  - name: " + IQN + "\n    luns: [{id: 0, backing: ram, size: 16M}]\n");
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private Map<String, String> keys(String initiator) {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target(IQN)));
        keys.put("InitiatorName", initiator);
        keys.put("InitialR2T", "Yes");
        keys.put("ImmediateData", "No");
        return keys;
    }

    /** A login's status; the connection is returned open on success (else closed, null). */
    private TestConnection tryLogin(String initiator, int[] status) throws IOException {
        TestConnection c = TestConnection.open(daemon.target(IQN));
        TestPdu rsp = c.attemptLogin(keys(initiator), TestConnection.newIsidQualifier());
        assertNotNull(rsp, "no login response\ntrace: " + c.trace());
        status[0] = rsp.byteAt(36) << 8 | rsp.byteAt(37);
        if (status[0] != 0) {
            c.close();
            return null;
        }
        return c;
    }

    /** Logs in, retrying for 5 s while the target is out of sessions (closed sessions leave asynchronously). */
    private TestConnection login(String initiator) throws Exception {
        int[] status = new int[1];
        long deadline = System.nanoTime() + ANSWER.toNanos();
        while (true) {
            TestConnection c = tryLogin(initiator, status);
            if (c != null) {
                return c;
            }
            if (status[0] != 0x0302 || System.nanoTime() > deadline) {
                fail("login of " + initiator + " refused with status 0x" + Integer.toHexString(status[0]) + "\n"
                        + daemon.logTail());
            }
            Thread.sleep(100);
        }
    }

    private static void closeAll(List<TestConnection> cs) throws IOException {
        for (TestConnection c : cs) {
            c.close();
        }
    }

    @Test
    void sessionsPerInitiatorAndPerDaemonAreLimited() throws Exception {
        String a = "iqn.2026-11.io.numaiscsi:limits-a";
        String b = "iqn.2026-11.io.numaiscsi:limits-b";
        List<TestConnection> held = new ArrayList<>();
        try {
            held.add(login(a));
            held.add(login(a));
            int[] status = new int[1];
            assertEquals(null, tryLogin(a, status));
            assertEquals(0x0302, status[0], "a third session of one initiator: out of resources");
            List<String> lines = daemon.awaitLogLines(a + " holds 2 of at most 2", 1);
            assertEquals(1, lines.size(), daemon.logTail());
            assertTrue(lines.get(0).contains("rejected"), lines.get(0));

            held.add(login(b));
            held.add(login(b));
            assertEquals(null, tryLogin("iqn.2026-11.io.numaiscsi:limits-c", status));
            assertEquals(0x0302, status[0], "a fifth session of the daemon: out of resources");

            held.remove(0).close();
            held.add(login(a)); // room again once a session has ended
            held.get(held.size() - 1).ping();
        } finally {
            closeAll(held);
        }
    }

    @Test
    void cmdSnWindowIsTheQueueDepth() throws Exception {
        try (TestConnection c = login("iqn.2026-11.io.numaiscsi:limits-window")) {
            c.ping();
            TestPdu nopIn = c.lastReceived();
            assertEquals(TestPdu.NOP_IN, nopIn.opcode());
            int expCmdSn = nopIn.int32(28);
            int maxCmdSn = nopIn.int32(32);
            assertEquals(QUEUE_DEPTH, maxCmdSn - expCmdSn + 1, "outstanding commands bounded by queue-depth");
        }
    }

    private TestPdu expectR2t(TestConnection c, int itt) throws IOException {
        TestPdu p = c.read(ANSWER);
        assertNotNull(p, "closed\ntrace: " + c.trace());
        assertEquals(TestPdu.R2T, p.opcode(), "expected an R2T, got " + p + "\ntrace: " + c.trace());
        assertEquals(itt, p.itt());
        assertEquals(0, p.int32(40), "R2T offset");
        assertEquals(WRITE, p.int32(44), "R2T length");
        return p;
    }

    private void answer(TestConnection c, TestPdu r2t, byte[] data) throws IOException {
        for (int offset = 0, dataSn = 0; offset < WRITE; offset += PDU, dataSn++) {
            c.send(c.dataOut(
                    0,
                    r2t.itt(),
                    r2t.int32(20),
                    dataSn,
                    offset,
                    Arrays.copyOfRange(data, offset, offset + PDU),
                    offset + PDU == WRITE));
        }
    }

    @Test
    void writeBeyondTheBufferBudgetWaitsForItsR2t() throws Exception {
        try (TestConnection c = login("iqn.2026-11.io.numaiscsi:limits-writer")) {
            byte[] first = ScsiCdb.pattern(WRITE, 3);
            byte[] second = ScsiCdb.pattern(WRITE, 9);
            int ittA = c.newItt();
            c.send(c.scsiCommand(0, ittA, ScsiCdb.write10(0, WRITE / BLOCK), WRITE, TestConnection.WRITE_BIT, true));
            TestPdu r2tA = expectR2t(c, ittA);
            int ittB = c.newItt();
            c.send(c.scsiCommand(0, ittB, ScsiCdb.write10(1024, WRITE / BLOCK), WRITE, TestConnection.WRITE_BIT, true));
            try {
                TestPdu p = c.read(QUIET);
                fail("the second write must wait for buffer budget, got " + p + "\ntrace: " + c.trace());
            } catch (SocketTimeoutException expected) {
                // parked: 64K held by the first write, budget 64K
            }
            answer(c, r2tA, first);
            ScsiResult a = c.awaitStatus(ittA, ANSWER);
            assertEquals(ScsiResult.GOOD, a.status(), a.toString());
            TestPdu r2tB = null;
            for (TestPdu p : a.others()) {
                if (p.opcode() == TestPdu.R2T && p.itt() == ittB) {
                    r2tB = p;
                }
            }
            if (r2tB == null) {
                r2tB = expectR2t(c, ittB);
            }
            answer(c, r2tB, second);
            ScsiResult b = c.awaitStatus(ittB, ANSWER);
            assertEquals(ScsiResult.GOOD, b.status(), b.toString());
            int ittRead = c.newItt();
            c.send(c.scsiCommand(
                    0, ittRead, ScsiCdb.read10(1024, WRITE / BLOCK), WRITE, TestConnection.READ_BIT, true));
            ScsiResult r = c.awaitStatus(ittRead, ANSWER);
            assertArrayEquals(second, r.data(), "the parked write's data");
            int ittRead0 = c.newItt();
            c.send(c.scsiCommand(0, ittRead0, ScsiCdb.read10(0, WRITE / BLOCK), WRITE, TestConnection.READ_BIT, true));
            assertArrayEquals(first, c.awaitStatus(ittRead0, ANSWER).data(), "the first write's data");
        }
    }
}
