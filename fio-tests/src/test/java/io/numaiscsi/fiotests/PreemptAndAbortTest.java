package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PERSISTENT RESERVE OUT / PREEMPT AND ABORT with two sessions (SPC-4 5.13.11.2.6): the preempted session's
 * outstanding commands are aborted, the one executing on the LU and the one still waiting for its Data-Out alike;
 * the preempting command completes only after the executing one can no longer touch the medium; the preempted
 * session then hears REGISTRATIONS PREEMPTED and meets the new holder's reservation.
 * LUN 1 is RAM behind an injected latency, so a WRITE stays executing long enough to be caught.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreemptAndAbortTest {
    static final Duration ANSWER = Duration.ofSeconds(10);
    static final int LUN = 1;
    static final long LATENCY_MS = 1500;
    static final long KEY_A = 0xAAAAL;
    static final long KEY_B = 0xBBBBL;
    static final int WRITE_EXCLUSIVE = 1;

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start(
                "PreemptAndAbortTest",
                DaemonProcess.Setup.fileLun(16L << 20)
                        .lun("{id: 1, backing: ram, size: 8M, block-size: 512, inject-latency: " + LATENCY_MS + "ms}"));
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private static byte[] prout(int serviceAction, int type) {
        return new byte[] {0x5F, (byte) serviceAction, (byte) type, 0, 0, 0, 0, 0, 24, 0};
    }

    private static byte[] proutList(long key, long serviceActionKey) {
        byte[] p = new byte[24];
        for (int i = 0; i < 8; i++) {
            p[7 - i] = (byte) (key >>> (8 * i));
            p[15 - i] = (byte) (serviceActionKey >>> (8 * i));
        }
        return p;
    }

    /** A PR OUT with its parameter list as immediate data; returns its itt (the status is read by the caller). */
    private static int sendProut(TestConnection c, int serviceAction, int type, long key, long serviceActionKey)
            throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(LUN, itt, prout(serviceAction, type), 24, TestConnection.WRITE_BIT, true)
                .data(proutList(key, serviceActionKey)));
        return itt;
    }

    private static void prout(TestConnection c, int serviceAction, int type, long key, long serviceActionKey)
            throws IOException {
        ScsiResult r = c.awaitStatus(sendProut(c, serviceAction, type, key, serviceActionKey), ANSWER);
        assertEquals(ScsiResult.GOOD, r.status(), "PR OUT service action " + serviceAction + ": " + r);
    }

    private static ScsiResult command(TestConnection c, byte[] cdb, int edtl) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(LUN, itt, cdb, edtl, edtl > 0 ? TestConnection.READ_BIT : 0, true));
        return c.awaitStatus(itt, ANSWER);
    }

    /** Sends a WRITE(10) of one block and waits for its R2T (the session takes no immediate or unsolicited data). */
    private static TestPdu writeAwaitingData(TestConnection c, int itt, long lba) throws IOException {
        c.send(c.scsiCommand(LUN, itt, ScsiCdb.write10(lba, 1), 512, TestConnection.WRITE_BIT, true));
        TestPdu r2t = c.read(ANSWER);
        assertNotNull(r2t, "closed instead of an R2T\ntrace: " + c.trace());
        assertEquals(TestPdu.R2T, r2t.opcode(), "R2T for the WRITE: " + r2t + "\ntrace: " + c.trace());
        assertEquals(itt, r2t.itt());
        return r2t;
    }

    @Test
    void preemptAndAbortAbortsThePreemptedSessionsCommands() throws Exception {
        Map<String, String> solicitedOnly = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target()));
        solicitedOnly.put("ImmediateData", "No");
        solicitedOnly.put("InitialR2T", "Yes");
        try (TestConnection a = TestConnection.loggedIn(daemon.target());
                TestConnection b =
                        TestConnection.loggedIn(daemon.target(), solicitedOnly, TestConnection.newIsidQualifier())) {
            prout(a, 0, 0, 0, KEY_A); // REGISTER
            // B's session takes no unsolicited data: its PR OUT parameter lists follow R2Ts
            int register = b.newItt();
            sendSolicited(b, register, prout(0, 0), proutList(0, KEY_B));
            assertEquals(ScsiResult.GOOD, b.awaitStatus(register, ANSWER).status(), "B registers");
            int reserve = b.newItt();
            sendSolicited(b, reserve, prout(1, WRITE_EXCLUSIVE), proutList(KEY_B, 0));
            assertEquals(ScsiResult.GOOD, b.awaitStatus(reserve, ANSWER).status(), "B reserves WRITE EXCLUSIVE");

            // B: one WRITE executing (its data in, held by the LUN's latency), one still waiting for its Data-Out
            int executing = b.newItt();
            TestPdu first = writeAwaitingData(b, executing, 10);
            b.send(b.dataOut(LUN, executing, first.int32(20), 0, 0, ScsiCdb.pattern(512, 1), true));
            long executingSince = System.nanoTime();
            int waiting = b.newItt();
            TestPdu second = writeAwaitingData(b, waiting, 20);

            int preempt = sendProut(a, 5, WRITE_EXCLUSIVE, KEY_A, KEY_B); // PREEMPT AND ABORT
            ScsiResult r = a.awaitStatus(preempt, ANSWER);
            long tookMs = (System.nanoTime() - executingSince) / 1_000_000;
            assertEquals(ScsiResult.GOOD, r.status(), "PREEMPT AND ABORT: " + r);
            // a floor, not a ceiling: the aborted WRITE sat behind the latency, and the preempt waited for it
            assertTrue(
                    tookMs >= LATENCY_MS - 200,
                    "PREEMPT AND ABORT answered " + tookMs
                            + " ms after B's WRITE started, before that WRITE could have finished (" + LATENCY_MS
                            + " ms)");

            // B's late Data-Out for the aborted WRITE is dropped; none of its aborted commands gets a status
            b.send(b.dataOut(LUN, waiting, second.int32(20), 0, 0, ScsiCdb.pattern(512, 2), true));
            ScsiResult attention = command(b, ScsiCdb.testUnitReady(), 0);
            for (TestPdu other : attention.others()) {
                assertTrue(
                        other.itt() != executing && other.itt() != waiting,
                        "a status for an aborted command: " + other + "\ntrace: " + b.trace());
            }
            assertEquals(ScsiResult.CHECK_CONDITION, attention.status(), "B's next command: " + attention);
            assertEquals(ScsiResult.UNIT_ATTENTION, attention.senseKey(), attention.toString());
            assertEquals(0x2A, attention.asc(), "REGISTRATIONS PREEMPTED: " + attention);
            assertEquals(0x05, attention.ascq(), "REGISTRATIONS PREEMPTED: " + attention);

            int refused = b.newItt();
            sendSolicited(b, refused, ScsiCdb.write10(30, 1), new byte[512]);
            assertEquals(0x18, b.awaitStatus(refused, ANSWER).status(), "B's WRITE meets A's reservation (CONFLICT)");

            assertArrayEquals(
                    new byte[512],
                    command(a, ScsiCdb.read10(20, 1), 512).data(),
                    "the WRITE aborted while waiting for its data never reached the medium");
            prout(a, 3, 0, KEY_A, 0); // CLEAR: leave the LU as found
            b.ping();
        }
        TestConnection.assertFreshSessionWorks(daemon);
    }

    /** A command whose data goes after its R2T (B's session takes no unsolicited data). */
    private static void sendSolicited(TestConnection c, int itt, byte[] cdb, byte[] data) throws IOException {
        c.send(c.scsiCommand(LUN, itt, cdb, data.length, TestConnection.WRITE_BIT, true));
        TestPdu r2t = c.read(ANSWER);
        assertNotNull(r2t, "closed instead of an R2T\ntrace: " + c.trace());
        assertEquals(TestPdu.R2T, r2t.opcode(), r2t + "\ntrace: " + c.trace());
        c.send(c.dataOut(LUN, itt, r2t.int32(20), 0, 0, data, true));
    }
}
