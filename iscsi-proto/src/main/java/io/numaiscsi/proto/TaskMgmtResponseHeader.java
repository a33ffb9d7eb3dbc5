package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Task Management Function Response BHS, RFC 7143 11.6. Reusable flyweight. */
public final class TaskMgmtResponseHeader {
    public static final int RESPONSE_OFFSET = 2;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;

    private ByteBuf buf;

    public TaskMgmtResponseHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public TaskMgmtResponseHeader init() {
        Bhs.init(buf, Opcode.TASK_MGMT_RESPONSE.code(), Bhs.FINAL_BIT);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    /** Raw code; see {@link TmfResponse#of(int)}. */
    public int response() {
        return buf.getUnsignedByte(RESPONSE_OFFSET);
    }

    public TaskMgmtResponseHeader response(int response) {
        buf.setByte(RESPONSE_OFFSET, response);
        return this;
    }

    public TaskMgmtResponseHeader response(TmfResponse response) {
        return response(response.code());
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public TaskMgmtResponseHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public TaskMgmtResponseHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public TaskMgmtResponseHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public TaskMgmtResponseHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }
}
