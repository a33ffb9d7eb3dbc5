package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.numaiscsi.fiotests.TestConnection.Outcome;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * Hostile and broken input over raw sockets, each case on a fresh connection. After every case
 * a healthy session opened at the start must still answer a NOP-Out ping, and the daemon must
 * still run: one bad connection may be dropped, never the daemon or its other sessions.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedPduTest {

    static final long LUN_BYTES = 16L << 20;
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(5);
    static final Set<Outcome> REFUSED = EnumSet.of(Outcome.REJECT, Outcome.CLOSED);
    static final Set<Outcome> LOGIN_REFUSED = EnumSet.of(Outcome.REJECT, Outcome.LOGIN_REJECT, Outcome.CLOSED);

    private final Path traceLog = DaemonProcess.logDir().resolve("malformed-pdu-trace.log");
    private DaemonProcess daemon;
    private TestConnection healthy;
    private TestConnection current;

    @BeforeAll
    void startDaemonAndHealthySession() throws Exception {
        daemon = DaemonProcess.start("MalformedPduTest", LUN_BYTES);
        Files.writeString(traceLog, "PDUs per case against " + daemon.target().lunUrl() + "\n");
        healthy = TestConnection.loggedIn(daemon.target());
        healthy.ping();
    }

    @AfterEach
    void healthySessionStillAnswers(TestInfo info) throws Exception {
        if (current != null) {
            Files.writeString(
                    traceLog,
                    "== " + info.getDisplayName() + "\n" + String.join("\n", current.trace()) + "\n",
                    StandardOpenOption.APPEND);
            current.close();
            current = null;
        }
        daemon.assertAlive();
        try {
            healthy.ping();
        } catch (AssertionError | IOException e) {
            fail("after " + info.getDisplayName() + " the healthy session stopped answering: " + e.getMessage() + "\n"
                    + daemon.logTail());
        }
    }

    @AfterAll
    void stopDaemon() throws Exception {
        if (healthy != null) {
            healthy.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    private TestConnection loggedIn() throws IOException {
        current = TestConnection.loggedIn(daemon.target());
        return current;
    }

    private TestConnection fresh() throws IOException {
        current = TestConnection.open(daemon.target());
        return current;
    }

    private void assertOutcome(Set<Outcome> allowed, Outcome actual, TestConnection c, String what) {
        assertTrue(
                allowed.contains(actual),
                what + ": expected one of " + allowed + " but got " + actual + "\ntrace: " + c.trace() + "\n"
                        + daemon.logTail());
    }

    /** A TEST UNIT READY command PDU (no data) with the given CmdSN. */
    private TestPdu testUnitReady(TestConnection c, int itt, int cmdSn) {
        return TestPdu.of(TestPdu.SCSI_COMMAND)
                .flags(TestPdu.FINAL | 1 /* ATTR simple */)
                .lun(daemon.target().lun())
                .itt(itt)
                .int32(20, 0)
                .int32(24, cmdSn)
                .int32(28, c.expStatSn());
    }

    @Test
    void unknownOpcodeIsRejectedOrClosed() throws Exception {
        TestConnection c = loggedIn();
        c.send(TestPdu.of(0x0f)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(c.newItt())
                .int32(24, c.cmdSn())
                .int32(28, c.expStatSn()));
        Outcome o = c.awaitRejectOrClose(ANSWER_TIMEOUT);
        assertOutcome(REFUSED, o, c, "opcode 0x0f");
        if (o == Outcome.REJECT) {
            // a rejected PDU has a well-formed length, so the connection may stay usable
            assertOutcome(EnumSet.of(Outcome.ANSWERED, Outcome.CLOSED), c.pingOrClosed(), c, "ping after the Reject");
        }
    }

    @Test
    void dataSegmentAboveMaxRecvDataSegmentLengthIsRefusedWithoutReadingIt() throws Exception {
        TestConnection c = loggedIn();
        int declared = 0xffffff; // 16 MiB - 1, far above any MaxRecvDataSegmentLength
        assertTrue(declared > c.targetMaxRecvDataSegmentLength());
        TestPdu nop = TestPdu.of(TestPdu.NOP_OUT)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(c.newItt())
                .int32(20, TestPdu.RESERVED_TAG)
                .int32(24, c.cmdSn())
                .int32(28, c.expStatSn())
                .dataSegmentLength(declared);
        c.send(nop);
        // only 4 KiB of the declared 16 MiB follow: a target waiting for the rest answers nothing
        c.sendRaw(new byte[4096], "4 KiB of the declared data segment");
        assertOutcome(
                REFUSED,
                c.awaitRejectOrClose(ANSWER_TIMEOUT),
                c,
                "DataSegmentLength " + declared + " > MaxRecvDataSegmentLength " + c.targetMaxRecvDataSegmentLength());
    }

    @Test
    void truncatedPduThenClose() throws Exception {
        TestConnection c = loggedIn();
        byte[] full = TestPdu.of(TestPdu.NOP_OUT)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(c.newItt())
                .int32(20, TestPdu.RESERVED_TAG)
                .int32(24, c.cmdSn())
                .int32(28, c.expStatSn())
                .toBytes();
        c.sendRaw(Arrays.copyOf(full, 20), "first 20 bytes of a NOP-Out BHS");
        c.close();
        // give the target time to see the half PDU and the FIN before the healthy ping
        Thread.sleep(200);
    }

    @Test
    void garbageBeforeLoginIsRefused() throws Exception {
        TestConnection c = fresh();
        byte[] garbage = new byte[64];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = (byte) (i * 37 + 11);
        }
        c.sendRaw(garbage, "64 bytes of garbage instead of a Login Request");
        assertOutcome(LOGIN_REFUSED, c.awaitRejectOrClose(ANSWER_TIMEOUT), c, "garbage before login");
    }

    @Test
    void scsiCommandAsFirstPduIsRefused() throws Exception {
        TestConnection c = fresh();
        c.send(testUnitReady(c, c.newItt(), 1));
        assertOutcome(LOGIN_REFUSED, c.awaitRejectOrClose(ANSWER_TIMEOUT), c, "SCSI Command before any login");
    }

    @Test
    void scsiCommandDuringLoginIsRefused() throws Exception {
        TestConnection c = fresh();
        // T=0: the login stays in operational negotiation, so the session is not yet in Full Feature Phase
        c.send(c.loginRequest(false, TestConnection.loginKeys(daemon.target())));
        TestPdu rsp = c.read(ANSWER_TIMEOUT);
        if (rsp == null || rsp.opcode() != TestPdu.LOGIN_RESPONSE || rsp.byteAt(36) != 0) {
            fail("first login PDU refused: " + rsp + "\ntrace: " + c.trace());
        }
        c.send(testUnitReady(c, c.newItt(), 1));
        assertOutcome(LOGIN_REFUSED, c.awaitRejectOrClose(ANSWER_TIMEOUT), c, "SCSI Command during login");
    }

    @Test
    void commandOutsideCmdSnWindowIsSilentlyIgnored() throws Exception {
        TestConnection c = loggedIn();
        int badItt = c.newItt();
        c.send(testUnitReady(c, badItt, c.cmdSn() + 0x40000000));
        c.ping(); // fails unless the NOP-In comes
        try {
            TestPdu late = c.read(Duration.ofMillis(500));
            assertTrue(
                    late == null || late.itt() != badItt,
                    "answer to the out-of-window command: " + late + "\ntrace: " + c.trace());
        } catch (SocketTimeoutException expected) {
            // silence is the required behaviour
        }
        for (String line : c.trace()) {
            assertTrue(
                    !line.startsWith("<-") || !line.contains(String.format("itt=0x%08x", badItt)),
                    "the out-of-window command was answered: " + c.trace());
        }
    }

    @Test
    void dataOutForUnknownTargetTransferTagDoesNotBreakTheConnection() throws Exception {
        TestConnection c = loggedIn();
        int itt = c.newItt();
        c.send(TestPdu.of(TestPdu.DATA_OUT)
                .flags(TestPdu.FINAL)
                .lun(daemon.target().lun())
                .itt(itt)
                .int32(20, 0x12345678)
                .int32(28, c.expStatSn())
                .int32(36, 0)
                .int32(40, 0)
                .data(new byte[512]));
        Outcome o = c.awaitRejectOrClose(Duration.ofSeconds(1));
        assertNotEquals(
                Outcome.OTHER_PDU, o, "unexpected answer to a Data-Out for TTT 0x12345678\ntrace: " + c.trace());
        if (o != Outcome.CLOSED) {
            // the PDU was well framed: the connection stays in step (or is closed, never hung)
            assertOutcome(
                    EnumSet.of(Outcome.ANSWERED, Outcome.CLOSED), c.pingOrClosed(), c, "ping after the stray Data-Out");
        }
    }
}
