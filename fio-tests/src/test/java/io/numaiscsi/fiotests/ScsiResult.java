package io.numaiscsi.fiotests;

import java.util.List;

/**
 * How one SCSI command ended on the wire: status and iSCSI response from the SCSI Response (or the
 * Data-In carrying status), the Data-In bytes by offset, the sense data, and every PDU seen meanwhile.
 */
record ScsiResult(
        int status,
        int response,
        byte[] data,
        byte[] sense,
        TestPdu statusPdu,
        List<TestPdu> pdus,
        List<TestPdu> others) {

    static final int GOOD = 0x00;
    static final int CHECK_CONDITION = 0x02;
    static final int UNIT_ATTENTION = 0x6;

    int senseKey() {
        if (sense.length < 3) {
            return -1;
        }
        return descriptorFormat() ? sense[1] & 0x0f : sense[2] & 0x0f;
    }

    int asc() {
        return descriptorFormat() ? byteOf(2) : byteOf(12);
    }

    int ascq() {
        return descriptorFormat() ? byteOf(3) : byteOf(13);
    }

    private boolean descriptorFormat() {
        return sense.length > 0 && (sense[0] & 0x7f) >= 0x72;
    }

    private int byteOf(int i) {
        return i < sense.length ? sense[i] & 0xff : -1;
    }

    int statSn() {
        return statusPdu.int32(24);
    }

    @Override
    public String toString() {
        return String.format(
                "status=0x%02x response=%d sense=%x/%02x/%02x data=%d bytes, %s",
                status, response, senseKey(), asc(), ascq(), data.length, statusPdu);
    }
}
