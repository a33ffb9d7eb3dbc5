package io.numaiscsi.proto;

/** SCSI Response BHS, RFC 7143 11.4. Reusable flyweight; absolute access, indexes untouched. */
public final class ScsiResponseHeader extends ScsiStatusBhsFlyweight<ScsiResponseHeader> {
    public static final int RESPONSE_OFFSET = 2;
    public static final int SNACK_TAG_OFFSET = 20;
    public static final int EXP_DATA_SN_OFFSET = 36;
    public static final int BIDI_RESIDUAL_COUNT_OFFSET = 40;

    public static final int BIDI_OVERFLOW_BIT = 0x10;
    public static final int BIDI_UNDERFLOW_BIT = 0x08;

    public static final int RESPONSE_COMPLETED_AT_TARGET = 0x00;
    public static final int RESPONSE_TARGET_FAILURE = 0x01;

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public ScsiResponseHeader init() {
        return init(Opcode.SCSI_RESPONSE, Bhs.FINAL_BIT);
    }

    public boolean bidiOverflow() {
        return flag(BIDI_OVERFLOW_BIT);
    }

    public ScsiResponseHeader bidiOverflow(boolean on) {
        return flag(BIDI_OVERFLOW_BIT, on);
    }

    public boolean bidiUnderflow() {
        return flag(BIDI_UNDERFLOW_BIT);
    }

    public ScsiResponseHeader bidiUnderflow(boolean on) {
        return flag(BIDI_UNDERFLOW_BIT, on);
    }

    public int response() {
        return buf.getUnsignedByte(RESPONSE_OFFSET);
    }

    public ScsiResponseHeader response(int response) {
        return setByte(RESPONSE_OFFSET, response);
    }

    public int snackTag() {
        return buf.getInt(SNACK_TAG_OFFSET);
    }

    public ScsiResponseHeader snackTag(int tag) {
        return setInt(SNACK_TAG_OFFSET, tag);
    }

    public int expDataSN() {
        return buf.getInt(EXP_DATA_SN_OFFSET);
    }

    public ScsiResponseHeader expDataSN(int expDataSN) {
        return setInt(EXP_DATA_SN_OFFSET, expDataSN);
    }

    public int bidiResidualCount() {
        return buf.getInt(BIDI_RESIDUAL_COUNT_OFFSET);
    }

    public ScsiResponseHeader bidiResidualCount(int count) {
        return setInt(BIDI_RESIDUAL_COUNT_OFFSET, count);
    }
}
