package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** SCSI Response BHS, RFC 7143 11.4. Reusable flyweight; absolute access, indexes untouched. */
public final class ScsiResponseHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int RESPONSE_OFFSET = 2;
    public static final int STATUS_OFFSET = 3;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int SNACK_TAG_OFFSET = 20;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int EXP_DATA_SN_OFFSET = 36;
    public static final int BIDI_RESIDUAL_COUNT_OFFSET = 40;
    public static final int RESIDUAL_COUNT_OFFSET = 44;

    public static final int BIDI_OVERFLOW_BIT = 0x10;
    public static final int BIDI_UNDERFLOW_BIT = 0x08;
    public static final int OVERFLOW_BIT = 0x04;
    public static final int UNDERFLOW_BIT = 0x02;

    public static final int RESPONSE_COMPLETED_AT_TARGET = 0x00;
    public static final int RESPONSE_TARGET_FAILURE = 0x01;

    private ByteBuf buf;

    public ScsiResponseHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public ScsiResponseHeader init() {
        Bhs.init(buf, Opcode.SCSI_RESPONSE.code(), Bhs.FINAL_BIT);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public boolean bidiOverflow() {
        return Bhs.flag(buf, FLAGS_OFFSET, BIDI_OVERFLOW_BIT);
    }

    public ScsiResponseHeader bidiOverflow(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, BIDI_OVERFLOW_BIT, on);
        return this;
    }

    public boolean bidiUnderflow() {
        return Bhs.flag(buf, FLAGS_OFFSET, BIDI_UNDERFLOW_BIT);
    }

    public ScsiResponseHeader bidiUnderflow(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, BIDI_UNDERFLOW_BIT, on);
        return this;
    }

    public boolean overflow() {
        return Bhs.flag(buf, FLAGS_OFFSET, OVERFLOW_BIT);
    }

    public ScsiResponseHeader overflow(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, OVERFLOW_BIT, on);
        return this;
    }

    public boolean underflow() {
        return Bhs.flag(buf, FLAGS_OFFSET, UNDERFLOW_BIT);
    }

    public ScsiResponseHeader underflow(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, UNDERFLOW_BIT, on);
        return this;
    }

    public int response() {
        return buf.getUnsignedByte(RESPONSE_OFFSET);
    }

    public ScsiResponseHeader response(int response) {
        buf.setByte(RESPONSE_OFFSET, response);
        return this;
    }

    /** SAM status (valid when response is 0). */
    public int status() {
        return buf.getUnsignedByte(STATUS_OFFSET);
    }

    public ScsiResponseHeader status(int status) {
        buf.setByte(STATUS_OFFSET, status);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public ScsiResponseHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int snackTag() {
        return buf.getInt(SNACK_TAG_OFFSET);
    }

    public ScsiResponseHeader snackTag(int tag) {
        buf.setInt(SNACK_TAG_OFFSET, tag);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public ScsiResponseHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public ScsiResponseHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public ScsiResponseHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    public int expDataSN() {
        return buf.getInt(EXP_DATA_SN_OFFSET);
    }

    public ScsiResponseHeader expDataSN(int expDataSN) {
        buf.setInt(EXP_DATA_SN_OFFSET, expDataSN);
        return this;
    }

    public int bidiResidualCount() {
        return buf.getInt(BIDI_RESIDUAL_COUNT_OFFSET);
    }

    public ScsiResponseHeader bidiResidualCount(int count) {
        buf.setInt(BIDI_RESIDUAL_COUNT_OFFSET, count);
        return this;
    }

    public int residualCount() {
        return buf.getInt(RESIDUAL_COUNT_OFFSET);
    }

    public ScsiResponseHeader residualCount(int count) {
        buf.setInt(RESIDUAL_COUNT_OFFSET, count);
        return this;
    }
}
