package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Write data movement (RFC 7143 4.2.4, 11.7, 11.8): R2T-solicited Data-Out under MaxBurstLength and
 * MaxOutstandingR2T, immediate plus unsolicited data up to FirstBurstLength, Data-Out past EDTL, and
 * ABORT TASK of a write still waiting for its data. The target offers max-burst 64K, first-burst 64K,
 * MaxOutstandingR2T 2; each connection negotiates ImmediateData / InitialR2T for its case.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DataOutTest {

    static final Duration ANSWER = Duration.ofSeconds(5);
    static final Duration QUIET = Duration.ofMillis(300);
    static final int BURST = 64 * 1024;
    static final int MAX_OUTSTANDING_R2T = 2;
    static final int PDU = 32 * 1024;
    static final int BLOCK = 512;
    static final int REJECT_INVALID_PDU_FIELD = 0x09;

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start(
                "DataOutTest",
                DaemonProcess.Setup.fileLun(16L << 20)
                        .iscsi("max-burst-length", "65536")
                        .iscsi("first-burst-length", "65536")
                        .iscsi("max-outstanding-r2t", Integer.toString(MAX_OUTSTANDING_R2T))
                        .iscsi("immediate-data", "true")
                        .iscsi("initial-r2t", "false"));
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

    private TestConnection session(boolean immediateData, boolean initialR2T) throws IOException {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target()));
        keys.put("ImmediateData", immediateData ? "Yes" : "No");
        keys.put("InitialR2T", initialR2T ? "Yes" : "No");
        keys.put("MaxBurstLength", "262144");
        keys.put("FirstBurstLength", "65536");
        keys.put("MaxOutstandingR2T", "4");
        TestConnection c = TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier());
        Map<String, String> n = c.negotiated();
        assertEquals(immediateData ? "Yes" : "No", n.get("ImmediateData"), "negotiated " + n);
        assertEquals(initialR2T ? "Yes" : "No", n.get("InitialR2T"), "negotiated " + n);
        assertEquals(Integer.toString(BURST), n.get("MaxBurstLength"), "negotiated " + n);
        assertEquals(Integer.toString(MAX_OUTSTANDING_R2T), n.get("MaxOutstandingR2T"), "negotiated " + n);
        return c;
    }

    /** Reads the next PDU, which must be an R2T for this command with these fields. */
    private TestPdu expectR2t(TestConnection c, int itt, int r2tSn, int offset, int length) throws IOException {
        TestPdu p = c.read(ANSWER);
        assertNotNull(p, "closed while waiting for R2T " + r2tSn + "\ntrace: " + c.trace() + "\n" + daemon.logTail());
        assertEquals(TestPdu.R2T, p.opcode(), "expected R2T " + r2tSn + ", got " + p + "\ntrace: " + c.trace());
        assertEquals(TestPdu.FINAL, p.flags(), "R2T flags");
        assertEquals(itt, p.itt(), "R2T ITT");
        assertNotEquals(TestPdu.RESERVED_TAG, p.int32(20), "R2T TTT");
        assertEquals(0, p.byteAt(9), "R2T LUN");
        assertEquals(c.expStatSn(), p.int32(24), "R2T StatSN is the next StatSN, not advanced");
        assertEquals(c.cmdSn(), p.int32(28), "R2T ExpCmdSN");
        assertEquals(r2tSn, p.int32(36), "R2TSN");
        assertEquals(offset, p.int32(40), "R2T BufferOffset");
        assertEquals(length, p.int32(44), "R2T DesiredDataTransferLength");
        return p;
    }

    private void assertQuiet(TestConnection c, String why) throws IOException {
        try {
            TestPdu p = c.read(QUIET);
            fail(why + ": got " + p + "\ntrace: " + c.trace());
        } catch (SocketTimeoutException expected) {
            // nothing more is due
        }
    }

    /** Answers one R2T with Data-Out PDUs of at most 32 KiB, DataSN from 0, F on the last. */
    private void answer(TestConnection c, TestPdu r2t, byte[] all) throws IOException {
        int offset = r2t.int32(40);
        int end = offset + r2t.int32(44);
        int dataSn = 0;
        while (offset < end) {
            int len = Math.min(PDU, end - offset);
            c.send(c.dataOut(
                    0,
                    r2t.itt(),
                    r2t.int32(20),
                    dataSn++,
                    offset,
                    Arrays.copyOfRange(all, offset, offset + len),
                    offset + len == end));
            offset += len;
        }
    }

    private byte[] read(TestConnection c, long lba, int bytes) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(0, itt, ScsiCdb.read10(lba, bytes / BLOCK), bytes, TestConnection.READ_BIT, true));
        ScsiResult r = c.awaitStatus(itt, ANSWER);
        assertEquals(ScsiResult.GOOD, r.status(), r.toString());
        return r.data();
    }

    @Test
    void solicitedWriteGetsR2tsUpToMaxOutstandingR2tAndReadsBack() throws Exception {
        try (TestConnection c = session(false, true)) {
            int total = 256 * 1024;
            byte[] data = ScsiCdb.pattern(total, 1);
            int itt = c.newItt();
            c.send(c.scsiCommand(0, itt, ScsiCdb.write10(0, total / BLOCK), total, TestConnection.WRITE_BIT, true));
            List<TestPdu> r2ts = new ArrayList<>();
            r2ts.add(expectR2t(c, itt, 0, 0, BURST));
            r2ts.add(expectR2t(c, itt, 1, BURST, BURST));
            assertQuiet(c, "more than MaxOutstandingR2T=" + MAX_OUTSTANDING_R2T + " R2Ts outstanding");
            // each completed burst frees one R2T slot
            answer(c, r2ts.get(0), data);
            r2ts.add(expectR2t(c, itt, 2, 2 * BURST, BURST));
            assertQuiet(c, "a third R2T while two are outstanding");
            answer(c, r2ts.get(1), data);
            r2ts.add(expectR2t(c, itt, 3, 3 * BURST, BURST));
            assertQuiet(c, "an R2T beyond the transfer");
            answer(c, r2ts.get(2), data);
            answer(c, r2ts.get(3), data);
            ScsiResult w = c.awaitStatus(itt, ANSWER);
            assertEquals(ScsiResult.GOOD, w.status(), w.toString());
            assertEquals(0, w.response());
            assertEquals(0, w.statusPdu().flags() & 0x06, "no residual");
            assertEquals(4, w.statusPdu().int32(36), "ExpDataSN of a write = R2Ts sent");
            assertArrayEquals(data, read(c, 0, total), "read back");
        }
    }

    @Test
    void immediateAndUnsolicitedDataThenR2tForTheRest() throws Exception {
        try (TestConnection c = session(true, false)) {
            int total = 256 * 1024;
            int immediate = 16 * 1024;
            byte[] data = ScsiCdb.pattern(total, 2);
            int itt = c.newItt();
            // F=0: unsolicited Data-Out follows up to FirstBurstLength
            c.send(c.scsiCommand(0, itt, ScsiCdb.write10(1024, total / BLOCK), total, TestConnection.WRITE_BIT, false)
                    .data(Arrays.copyOf(data, immediate)));
            int dataSn = 0;
            for (int offset = immediate; offset < BURST; offset += PDU) {
                int len = Math.min(PDU, BURST - offset);
                c.send(c.dataOut(
                        0,
                        itt,
                        TestPdu.RESERVED_TAG,
                        dataSn++,
                        offset,
                        Arrays.copyOfRange(data, offset, offset + len),
                        offset + len == BURST));
            }
            TestPdu r0 = expectR2t(c, itt, 0, BURST, BURST);
            TestPdu r1 = expectR2t(c, itt, 1, 2 * BURST, BURST);
            assertQuiet(c, "more than MaxOutstandingR2T R2Ts");
            answer(c, r0, data);
            TestPdu r2 = expectR2t(c, itt, 2, 3 * BURST, BURST);
            answer(c, r1, data);
            answer(c, r2, data);
            ScsiResult w = c.awaitStatus(itt, ANSWER);
            assertEquals(ScsiResult.GOOD, w.status(), w.toString());
            assertEquals(3, w.statusPdu().int32(36), "ExpDataSN = R2Ts sent");
            assertArrayEquals(data, read(c, 1024, total), "read back");
        }
    }

    @Test
    void dataOutBeyondExpectedDataTransferLengthIsRejected() throws Exception {
        try (TestConnection c = session(false, true)) {
            int total = 8 * BLOCK;
            byte[] data = ScsiCdb.pattern(total, 3);
            int itt = c.newItt();
            c.send(c.scsiCommand(0, itt, ScsiCdb.write10(2048, 8), total, TestConnection.WRITE_BIT, true));
            TestPdu r2t = expectR2t(c, itt, 0, 0, total);
            TestPdu beyond = c.dataOut(0, itt, r2t.int32(20), 0, total, new byte[BLOCK], true);
            c.send(beyond);
            TestPdu p = c.read(ANSWER);
            assertNotNull(p, "closed\ntrace: " + c.trace());
            assertEquals(TestPdu.REJECT, p.opcode(), p + "\ntrace: " + c.trace());
            assertEquals(REJECT_INVALID_PDU_FIELD, p.byteAt(2), "Reject reason");
            assertArrayEquals(beyond.bhs, p.data(), "the Reject carries the rejected BHS");
            // the command itself is still waiting for its data and completes normally
            answer(c, r2t, data);
            ScsiResult w = c.awaitStatus(itt, ANSWER);
            assertEquals(ScsiResult.GOOD, w.status(), w.toString());
            assertArrayEquals(data, read(c, 2048, total));
        }
    }

    @Test
    void abortTaskOfAWriteWaitingForDataCompletesWithoutStatusAndLeavesTheOldData() throws Exception {
        try (TestConnection c = session(false, true)) {
            int total = 8 * BLOCK;
            byte[] old = ScsiCdb.pattern(total, 4);
            int w0 = c.newItt();
            c.send(c.scsiCommand(0, w0, ScsiCdb.write10(4096, 8), total, TestConnection.WRITE_BIT, true));
            answer(c, expectR2t(c, w0, 0, 0, total), old);
            assertEquals(ScsiResult.GOOD, c.awaitStatus(w0, ANSWER).status());

            int w1 = c.newItt();
            int w1CmdSn = c.cmdSn();
            c.send(c.scsiCommand(0, w1, ScsiCdb.write10(4096, 8), total, TestConnection.WRITE_BIT, true));
            TestPdu r2t = expectR2t(c, w1, 0, 0, total);
            int tmf = c.newItt();
            int statSn = c.expStatSn();
            c.send(c.taskManagement(1, 0, tmf, w1, w1CmdSn));
            TestPdu rsp = c.read(ANSWER);
            assertNotNull(rsp, "closed\ntrace: " + c.trace());
            assertEquals(TestPdu.TASK_MGMT_RESPONSE, rsp.opcode(), rsp + "\ntrace: " + c.trace());
            assertEquals(tmf, rsp.itt());
            assertEquals(0, rsp.byteAt(2), "TMF response: function complete");
            assertEquals(statSn, rsp.int32(24), "StatSN of the TMF response");
            assertEquals(c.cmdSn(), rsp.int32(28), "ExpCmdSN: the aborted command's CmdSN was consumed");

            // late data for the aborted task is dropped, not answered
            c.send(c.dataOut(0, w1, r2t.int32(20), 0, 0, ScsiCdb.pattern(total, 77), true));
            int r = c.newItt();
            c.send(c.scsiCommand(0, r, ScsiCdb.read10(4096, 8), total, TestConnection.READ_BIT, true));
            ScsiResult rd = c.awaitStatus(r, ANSWER);
            assertEquals(ScsiResult.GOOD, rd.status(), rd.toString());
            assertTrue(rd.others().isEmpty(), "PDUs besides the READ's: " + rd.others());
            assertArrayEquals(old, rd.data(), "the aborted WRITE changed the medium");
            c.ping();
            assertTrue(
                    c.trace().stream()
                            .noneMatch(l -> l.startsWith("<-")
                                    && l.contains("opcode=0x21")
                                    && l.contains(String.format("itt=0x%08x", w1))),
                    "SCSI Response for the aborted task: " + c.trace());
        }
    }
}
