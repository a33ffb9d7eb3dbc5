package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.fiotests.TestConnection.Outcome;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * CRC32C header and data digests (RFC 7143 11.1, Appendix A.4) against a target that prefers them:
 * negotiation, digests on every PDU both ways, a data digest error rejected with reason 0x02, a header
 * digest error ending the connection.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DigestTest {

    static final Duration ANSWER = Duration.ofSeconds(5);
    static final int REJECT_DATA_DIGEST_ERROR = 0x02;

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start(
                "DigestTest",
                DaemonProcess.Setup.fileLun(16L << 20)
                        .iscsi("header-digest", "[CRC32C, None]")
                        .iscsi("data-digest", "[CRC32C, None]"));
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

    private TestConnection digestSession() throws Exception {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target()));
        keys.put("HeaderDigest", "CRC32C,None");
        keys.put("DataDigest", "CRC32C,None");
        TestConnection c = TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier());
        assertEquals("CRC32C", c.negotiated().get("HeaderDigest"), "login response keys " + c.negotiated());
        assertEquals("CRC32C", c.negotiated().get("DataDigest"), "login response keys " + c.negotiated());
        assertTrue(c.headerDigest() && c.dataDigest());
        return c;
    }

    private TestPdu pingWithData(TestConnection c, int itt, byte[] data) {
        return TestPdu.of(TestPdu.NOP_OUT)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(itt)
                .int32(20, TestPdu.RESERVED_TAG)
                .int32(24, c.cmdSn())
                .int32(28, c.expStatSn())
                .data(data);
    }

    private static void assertDigestsOk(TestConnection c, TestPdu p) {
        assertTrue(p.headerDigestOk, "header digest of " + p + "\ntrace: " + c.trace());
        assertTrue(p.dataDigestOk, "data digest of " + p + "\ntrace: " + c.trace());
    }

    @Test
    void nopOutWithFourKibPingDataIsEchoedWithCorrectDigests() throws Exception {
        try (TestConnection c = digestSession()) {
            byte[] ping = ScsiCdb.pattern(4096, 3);
            int itt = c.newItt();
            int statSn = c.expStatSn();
            c.send(pingWithData(c, itt, ping));
            TestPdu p = c.read(ANSWER);
            assertNotNull(p, "closed\ntrace: " + c.trace() + "\n" + daemon.logTail());
            assertEquals(TestPdu.NOP_IN, p.opcode(), p.toString());
            assertEquals(itt, p.itt());
            assertEquals(TestPdu.RESERVED_TAG, p.int32(20), "TTT of a NOP-In reply");
            assertEquals(statSn, p.int32(24), "StatSN");
            assertEquals(c.cmdSn(), p.int32(28), "ExpCmdSN (the NOP-Out was immediate)");
            assertArrayEquals(ping, p.data(), "ping data echoed");
            assertDigestsOk(c, p);
            // a reply without data carries a header digest only; the stream stays in step
            c.ping();
        }
    }

    @Test
    void writeWithImmediateDataAndReadBackRoundTrip() throws Exception {
        try (TestConnection c = digestSession()) {
            byte[] data = ScsiCdb.pattern(8 * 512, 11);
            int w = c.newItt();
            c.send(c.scsiCommand(0, w, ScsiCdb.write10(100, 8), data.length, TestConnection.WRITE_BIT, true)
                    .data(data));
            ScsiResult wr = c.awaitStatus(w, ANSWER);
            assertEquals(ScsiResult.GOOD, wr.status(), wr.toString());
            assertEquals(0, wr.response());
            assertDigestsOk(c, wr.statusPdu());

            int r = c.newItt();
            c.send(c.scsiCommand(0, r, ScsiCdb.read10(100, 8), data.length, TestConnection.READ_BIT, true));
            ScsiResult rd = c.awaitStatus(r, ANSWER);
            assertEquals(ScsiResult.GOOD, rd.status(), rd.toString());
            assertArrayEquals(data, rd.data(), "read back");
            for (TestPdu p : rd.pdus()) {
                assertDigestsOk(c, p);
            }
            assertEquals(c.cmdSn(), rd.statusPdu().int32(28), "ExpCmdSN after two commands");
        }
    }

    @Test
    void corruptedDataDigestGetsRejectDataDigestErrorAndTheConnectionStaysUsable() throws Exception {
        try (TestConnection c = digestSession()) {
            TestPdu bad = pingWithData(c, c.newItt(), ScsiCdb.pattern(1024, 5));
            byte[] wire = bad.toBytes(true, true);
            wire[wire.length - 1] ^= 0x5a; // last byte of the data digest
            c.sendRaw(wire, "NOP-Out with 1 KiB ping data and a wrong data digest: " + bad);
            TestPdu p = c.read(ANSWER);
            assertNotNull(p, "closed instead of a Reject\ntrace: " + c.trace() + "\n" + daemon.logTail());
            assertEquals(TestPdu.REJECT, p.opcode(), p + "\ntrace: " + c.trace());
            assertEquals(REJECT_DATA_DIGEST_ERROR, p.byteAt(2), "Reject reason");
            assertEquals(TestPdu.RESERVED_TAG, p.itt(), "a Reject's ITT field is 0xffffffff");
            assertArrayEquals(bad.bhs, p.data(), "the Reject carries the rejected BHS");
            assertDigestsOk(c, p);
            c.ping();
        }
    }

    @Test
    void corruptedHeaderDigestMakesTheTargetCloseTheConnection() throws Exception {
        try (TestConnection c = digestSession()) {
            TestPdu bad = pingWithData(c, c.newItt(), new byte[0]);
            byte[] wire = bad.toBytes(true, true);
            wire[TestPdu.BHS_LENGTH] ^= 0x01; // first byte of the header digest
            c.sendRaw(wire, "NOP-Out with a wrong header digest: " + bad);
            Outcome o = c.awaitRejectOrClose(ANSWER);
            assertEquals(
                    Outcome.CLOSED,
                    o,
                    "a header digest error cannot be trusted to frame anything\ntrace: " + c.trace() + "\n"
                            + daemon.logTail());
        }
    }

    @Test
    void corruptedDataDigestOnACommandWithImmediateDataRejectsItWithoutWriting() throws Exception {
        try (TestConnection c = digestSession()) {
            byte[] before = ScsiCdb.pattern(512, 21);
            int w0 = c.newItt();
            c.send(c.scsiCommand(0, w0, ScsiCdb.write10(300, 1), 512, TestConnection.WRITE_BIT, true)
                    .data(before));
            assertEquals(ScsiResult.GOOD, c.awaitStatus(w0, ANSWER).status());

            // the command goes out immediate so a rejected PDU leaves no hole in the CmdSN sequence
            byte[] other = ScsiCdb.pattern(512, 99);
            int w1 = c.newItt();
            TestPdu bad = TestPdu.of(TestPdu.SCSI_COMMAND)
                    .immediate()
                    .flags(TestPdu.FINAL | TestConnection.WRITE_BIT | 1)
                    .lun(0)
                    .itt(w1)
                    .int32(20, 512)
                    .int32(24, c.cmdSn())
                    .int32(28, c.expStatSn())
                    .data(other);
            byte[] cdb = ScsiCdb.write10(300, 1);
            for (int i = 0; i < cdb.length; i++) {
                bad.byteAt(32 + i, cdb[i]);
            }
            byte[] wire = bad.toBytes(true, true);
            wire[wire.length - 4] ^= (byte) 0x80;
            c.sendRaw(wire, "immediate WRITE10 with a wrong data digest: " + bad);
            TestPdu p = c.read(ANSWER);
            assertNotNull(p, "closed instead of a Reject\ntrace: " + c.trace());
            assertEquals(TestPdu.REJECT, p.opcode(), p + "\ntrace: " + c.trace());
            assertEquals(REJECT_DATA_DIGEST_ERROR, p.byteAt(2), "Reject reason");
            assertEquals(w1, TestPdu.received(p.data(), new byte[0]).itt(), "rejected BHS");

            int r = c.newItt();
            c.send(c.scsiCommand(0, r, ScsiCdb.read10(300, 1), 512, TestConnection.READ_BIT, true));
            ScsiResult rd = c.awaitStatus(r, ANSWER);
            assertEquals(ScsiResult.GOOD, rd.status(), rd.toString());
            assertTrue(
                    rd.others().stream().noneMatch(x -> x.itt() == w1),
                    "the rejected WRITE was answered: " + c.trace());
            assertArrayEquals(
                    before,
                    rd.data(),
                    "the rejected WRITE changed the medium: first bytes "
                            + Arrays.toString(Arrays.copyOf(rd.data(), 8)));
        }
    }
}
