package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Ready To Transfer BHS, RFC 7143 11.8. Reusable flyweight. */
public final class R2tHeader {
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int R2T_SN_OFFSET = 36;
    public static final int BUFFER_OFFSET_OFFSET = 40;
    public static final int DESIRED_DATA_TRANSFER_LENGTH_OFFSET = 44;

    private ByteBuf buf;

    public R2tHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public R2tHeader init() {
        Bhs.init(buf, Opcode.R2T.code(), Bhs.FINAL_BIT);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public R2tHeader lun(long lun) {
        buf.setLong(LUN_OFFSET, lun);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public R2tHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    public R2tHeader targetTransferTag(int ttt) {
        buf.setInt(TARGET_TRANSFER_TAG_OFFSET, ttt);
        return this;
    }

    /** The next StatSN; not advanced by an R2T. */
    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public R2tHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public R2tHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public R2tHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    public int r2tSN() {
        return buf.getInt(R2T_SN_OFFSET);
    }

    public R2tHeader r2tSN(int r2tSN) {
        buf.setInt(R2T_SN_OFFSET, r2tSN);
        return this;
    }

    public int bufferOffset() {
        return buf.getInt(BUFFER_OFFSET_OFFSET);
    }

    public R2tHeader bufferOffset(int offset) {
        buf.setInt(BUFFER_OFFSET_OFFSET, offset);
        return this;
    }

    public int desiredDataTransferLength() {
        return buf.getInt(DESIRED_DATA_TRANSFER_LENGTH_OFFSET);
    }

    public R2tHeader desiredDataTransferLength(int length) {
        buf.setInt(DESIRED_DATA_TRANSFER_LENGTH_OFFSET, length);
        return this;
    }
}
