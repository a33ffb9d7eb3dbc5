package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Block I/O on LUN 0 over one raw {@link TestConnection}: WRITE(10) (optionally FUA) answered R2T by R2T,
 * READ(10), SYNCHRONIZE CACHE(10) and a Logout. The session negotiates ImmediateData=No and
 * InitialR2T=Yes, so every byte of a write is solicited. A UNIT ATTENTION (e.g. the power-on reset after
 * a daemon restart) is taken and the command sent again.
 */
final class RawBlockIo implements AutoCloseable {

    static final int BLOCK = 512;
    static final Duration ANSWER = Duration.ofSeconds(30);
    private static final int SYNCHRONIZE_CACHE_10 = 0x35;
    private static final int FUA = 0x08;
    private static final int ATTEMPTS = 4;

    private final TestConnection c;

    private RawBlockIo(TestConnection c) {
        this.c = c;
    }

    static RawBlockIo login(IscsiTarget target) throws IOException {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(target));
        keys.put("ImmediateData", "No");
        keys.put("InitialR2T", "Yes");
        keys.put("MaxBurstLength", "262144");
        keys.put("FirstBurstLength", "65536");
        return new RawBlockIo(TestConnection.loggedIn(target, keys, TestConnection.newIsidQualifier()));
    }

    /** WRITE(10) of {@code data} (a multiple of 512 bytes) at {@code lba}; returns once GOOD status arrived. */
    void write(long lba, byte[] data, boolean fua) throws IOException {
        byte[] cdb = ScsiCdb.write10(lba, data.length / BLOCK);
        if (fua) {
            cdb[1] |= FUA;
        }
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            int itt = c.newItt();
            c.send(c.scsiCommand(0, itt, cdb, data.length, TestConnection.WRITE_BIT, true));
            TestPdu status = awaitWriteStatus(itt, data);
            if (good(status, "WRITE(10) lba " + lba + " x" + data.length / BLOCK + (fua ? " FUA" : ""), attempt)) {
                return;
            }
        }
    }

    /** READ(10) of {@code blocks} at {@code lba}. */
    byte[] read(long lba, int blocks) throws IOException {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            int itt = c.newItt();
            c.send(c.scsiCommand(0, itt, ScsiCdb.read10(lba, blocks), blocks * BLOCK, TestConnection.READ_BIT, true));
            ScsiResult r = c.awaitStatus(itt, ANSWER);
            if (good(r.statusPdu(), "READ(10) lba " + lba + " x" + blocks, attempt)) {
                return Arrays.copyOf(r.data(), blocks * BLOCK);
            }
        }
        return null;
    }

    /** SYNCHRONIZE CACHE(10) of the whole LUN (LBA 0, 0 blocks = to the end), IMMED=0. */
    void synchronizeCache() throws IOException {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) SYNCHRONIZE_CACHE_10;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            int itt = c.newItt();
            c.send(c.scsiCommand(0, itt, cdb, 0, 0, true));
            ScsiResult r = c.awaitStatus(itt, ANSWER);
            if (good(r.statusPdu(), "SYNCHRONIZE CACHE(10)", attempt)) {
                return;
            }
        }
    }

    /** Logout (reason 0, close the session): fails unless the Logout Response says closed successfully. */
    void logout() throws IOException {
        int itt = c.newItt();
        c.send(TestPdu.of(TestPdu.LOGOUT_REQUEST)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(itt)
                .int32(24, c.cmdSn())
                .int32(28, c.expStatSn()));
        TestPdu p = c.expect(ANSWER, "Logout Response");
        if (p.opcode() != TestPdu.LOGOUT_RESPONSE || p.itt() != itt || p.byteAt(2) != 0) {
            fail("logout not answered with 'closed successfully': " + p + "\ntrace: " + tail());
        }
    }

    /** Answers every R2T of the write {@code itt} from {@code data}; returns the SCSI Response. */
    private TestPdu awaitWriteStatus(int itt, byte[] data) throws IOException {
        int segment = c.targetMaxRecvDataSegmentLength();
        while (true) {
            TestPdu p = c.expect(ANSWER, "R2T or status of write itt=0x" + Integer.toHexString(itt));
            if (p.itt() != itt) {
                fail("unexpected PDU " + p + " while writing itt=0x" + Integer.toHexString(itt) + "\ntrace: " + tail());
            }
            if (p.opcode() == TestPdu.SCSI_RESPONSE) {
                return p;
            }
            if (p.opcode() != TestPdu.R2T) {
                fail("expected R2T or SCSI Response, got " + p + "\ntrace: " + tail());
            }
            int ttt = p.int32(20);
            int offset = p.int32(40);
            int end = offset + p.int32(44);
            if (end > data.length) {
                fail("R2T beyond the write's " + data.length + " bytes: " + p + "\ntrace: " + tail());
            }
            int dataSn = 0;
            while (offset < end) {
                int len = Math.min(segment, end - offset);
                c.send(c.dataOut(
                        0,
                        itt,
                        ttt,
                        dataSn++,
                        offset,
                        Arrays.copyOfRange(data, offset, offset + len),
                        offset + len == end));
                offset += len;
            }
        }
    }

    /** GOOD: true; UNIT ATTENTION before the last attempt: false (send again); anything else fails the test. */
    private boolean good(TestPdu status, String what, int attempt) {
        int scsiStatus = status.byteAt(3);
        if (status.opcode() == TestPdu.SCSI_RESPONSE && status.byteAt(2) != 0) {
            fail(what + ": iSCSI response " + status.byteAt(2) + " " + status + "\ntrace: " + tail());
        }
        if (scsiStatus == ScsiResult.GOOD) {
            return true;
        }
        byte[] seg = status.opcode() == TestPdu.SCSI_RESPONSE ? status.data() : new byte[0];
        byte[] sense = seg.length > 2 ? Arrays.copyOfRange(seg, 2, seg.length) : new byte[0];
        ScsiResult r = new ScsiResult(scsiStatus, 0, new byte[0], sense, status, List.of(), List.of());
        if (scsiStatus == ScsiResult.CHECK_CONDITION
                && r.senseKey() == ScsiResult.UNIT_ATTENTION
                && attempt < ATTEMPTS) {
            return false;
        }
        fail(what + ": " + r + "\ntrace: " + tail());
        return false;
    }

    private String tail() {
        var t = c.trace();
        return String.join("\n", t.subList(Math.max(0, t.size() - 12), t.size()));
    }

    @Override
    public void close() throws IOException {
        c.close();
    }
}
