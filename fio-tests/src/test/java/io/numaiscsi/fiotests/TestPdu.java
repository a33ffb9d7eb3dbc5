package io.numaiscsi.fiotests;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * A hand-built iSCSI PDU for the raw-socket tests (RFC 7143 section 11): the 48-byte Basic
 * Header Segment plus a data segment, no AHS, no digests. Deliberately independent of the
 * product's codec so a codec bug cannot hide itself.
 */
final class TestPdu {

    static final int BHS_LENGTH = 48;

    static final int DIGEST_LENGTH = 4;

    static final int NOP_OUT = 0x00;
    static final int SCSI_COMMAND = 0x01;
    static final int TASK_MGMT_REQUEST = 0x02;
    static final int LOGIN_REQUEST = 0x03;
    static final int TEXT_REQUEST = 0x04;
    static final int DATA_OUT = 0x05;
    static final int LOGOUT_REQUEST = 0x06;
    static final int NOP_IN = 0x20;
    static final int SCSI_RESPONSE = 0x21;
    static final int TASK_MGMT_RESPONSE = 0x22;
    static final int LOGIN_RESPONSE = 0x23;
    static final int TEXT_RESPONSE = 0x24;
    static final int DATA_IN = 0x25;
    static final int LOGOUT_RESPONSE = 0x26;
    static final int R2T = 0x31;
    static final int ASYNC_MESSAGE = 0x32;
    static final int REJECT = 0x3f;

    static final int IMMEDIATE = 0x40;
    static final int FINAL = 0x80;
    static final int TRANSIT = 0x80;
    static final int RESERVED_TAG = 0xffffffff;

    final byte[] bhs;
    private byte[] data = new byte[0];
    /** Received PDUs on a connection with digests: whether the digests on the wire were right. */
    boolean headerDigestOk = true;

    boolean dataDigestOk = true;

    private TestPdu(byte[] bhs) {
        this.bhs = bhs;
    }

    static TestPdu of(int opcode) {
        TestPdu p = new TestPdu(new byte[BHS_LENGTH]);
        p.bhs[0] = (byte) opcode;
        return p;
    }

    static TestPdu received(byte[] bhs, byte[] data) {
        TestPdu p = new TestPdu(bhs);
        p.data = data;
        return p;
    }

    TestPdu immediate() {
        bhs[0] |= IMMEDIATE;
        return this;
    }

    TestPdu flags(int flags) {
        bhs[1] = (byte) flags;
        return this;
    }

    TestPdu byteAt(int offset, int value) {
        bhs[offset] = (byte) value;
        return this;
    }

    TestPdu int32(int offset, int value) {
        bhs[offset] = (byte) (value >>> 24);
        bhs[offset + 1] = (byte) (value >>> 16);
        bhs[offset + 2] = (byte) (value >>> 8);
        bhs[offset + 3] = (byte) value;
        return this;
    }

    /** Single-level LUN, peripheral device addressing (SAM-5), for LUNs below 256. */
    TestPdu lun(int lun) {
        bhs[9] = (byte) lun;
        return this;
    }

    TestPdu itt(int itt) {
        return int32(16, itt);
    }

    /** The data segment; also sets DataSegmentLength. */
    TestPdu data(byte[] bytes) {
        data = bytes.clone();
        return dataSegmentLength(bytes.length);
    }

    /** Text keys as {@code key=value\0...}. */
    TestPdu text(Map<String, String> keys) {
        StringBuilder sb = new StringBuilder();
        keys.forEach((k, v) -> sb.append(k).append('=').append(v).append('\0'));
        return data(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Declares a DataSegmentLength without changing the bytes sent (for malformed PDUs). */
    TestPdu dataSegmentLength(int length) {
        bhs[5] = (byte) (length >>> 16);
        bhs[6] = (byte) (length >>> 8);
        bhs[7] = (byte) length;
        return this;
    }

    /** BHS, data segment, zero padding to a 4-byte boundary. */
    byte[] toBytes() {
        return toBytes(false, false);
    }

    /**
     * BHS, header digest, data segment, padding, data digest (RFC 7143 11.1). The data digest covers the
     * padding and is left out when there is no data segment.
     */
    byte[] toBytes(boolean headerDigest, boolean dataDigest) {
        int padded = (data.length + 3) & ~3;
        int hd = headerDigest ? DIGEST_LENGTH : 0;
        int dd = dataDigest && data.length > 0 ? DIGEST_LENGTH : 0;
        byte[] out = new byte[BHS_LENGTH + hd + padded + dd];
        System.arraycopy(bhs, 0, out, 0, BHS_LENGTH);
        if (hd > 0) {
            putDigest(out, BHS_LENGTH, crc32c(out, 0, BHS_LENGTH));
        }
        System.arraycopy(data, 0, out, BHS_LENGTH + hd, data.length);
        if (dd > 0) {
            putDigest(out, BHS_LENGTH + hd + padded, crc32c(out, BHS_LENGTH + hd, padded));
        }
        return out;
    }

    static int crc32c(byte[] b, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b, offset, length);
        return (int) crc.getValue();
    }

    /** iSCSI sends a digest least significant byte first (RFC 7143 Appendix A.4). */
    static void putDigest(byte[] out, int offset, int crc) {
        out[offset] = (byte) crc;
        out[offset + 1] = (byte) (crc >>> 8);
        out[offset + 2] = (byte) (crc >>> 16);
        out[offset + 3] = (byte) (crc >>> 24);
    }

    static int digestAt(byte[] b, int offset) {
        return (b[offset] & 0xff)
                | (b[offset + 1] & 0xff) << 8
                | (b[offset + 2] & 0xff) << 16
                | (b[offset + 3] & 0xff) << 24;
    }

    int opcode() {
        return bhs[0] & 0x3f;
    }

    int flags() {
        return bhs[1] & 0xff;
    }

    int byteAt(int offset) {
        return bhs[offset] & 0xff;
    }

    int int32(int offset) {
        return (bhs[offset] & 0xff) << 24
                | (bhs[offset + 1] & 0xff) << 16
                | (bhs[offset + 2] & 0xff) << 8
                | (bhs[offset + 3] & 0xff);
    }

    int dataSegmentLength() {
        return (bhs[5] & 0xff) << 16 | (bhs[6] & 0xff) << 8 | (bhs[7] & 0xff);
    }

    int totalAhsLength() {
        return (bhs[4] & 0xff) * 4;
    }

    int itt() {
        return int32(16);
    }

    byte[] data() {
        return data.clone();
    }

    /** The data segment read as text keys; later duplicates win. */
    Map<String, String> textKeys() {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String kv : new String(data, StandardCharsets.UTF_8).split("\0")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                keys.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return keys;
    }

    @Override
    public String toString() {
        return String.format(
                "PDU opcode=0x%02x flags=0x%02x itt=0x%08x dsl=%d byte2=0x%02x byte36=0x%02x byte37=0x%02x",
                opcode(), flags(), itt(), dataSegmentLength(), byteAt(2), byteAt(36), byteAt(37));
    }
}
