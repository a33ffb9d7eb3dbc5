package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * Reject BHS, RFC 7143 11.17. The data segment carries the complete header (BHS) of the
 * rejected PDU. Reusable flyweight.
 */
public final class RejectHeader {
    public static final int REASON_OFFSET = 2;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int DATA_SN_OFFSET = 36;

    private ByteBuf buf;

    public RejectHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS, sets the opcode, byte 1 bit 7 and the ITT 0xffffffff the RFC requires. */
    public RejectHeader init() {
        Bhs.init(buf, Opcode.REJECT.code(), Bhs.FINAL_BIT);
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, Bhs.RESERVED_TAG);
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

    /** Raw reason code; see {@link RejectReason#of(int)}. */
    public int rejectReason() {
        return buf.getUnsignedByte(REASON_OFFSET);
    }

    public RejectHeader rejectReason(int reason) {
        buf.setByte(REASON_OFFSET, reason);
        return this;
    }

    public RejectHeader rejectReason(RejectReason reason) {
        return rejectReason(reason.code());
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public RejectHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public RejectHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public RejectHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    /** DataSN/R2TSN: for a rejected SNACK, the expected DataSN or R2TSN; otherwise reserved. */
    public int dataSN() {
        return buf.getInt(DATA_SN_OFFSET);
    }

    public RejectHeader dataSN(int dataSN) {
        buf.setInt(DATA_SN_OFFSET, dataSN);
        return this;
    }
}
