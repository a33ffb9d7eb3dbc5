package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Logout Response BHS, RFC 7143 11.15. Reusable flyweight. */
public final class LogoutResponseHeader {
    public static final int RESPONSE_OFFSET = 2;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int TIME2WAIT_OFFSET = 40;
    public static final int TIME2RETAIN_OFFSET = 42;

    public static final int RESPONSE_CLOSED = 0;
    public static final int RESPONSE_CID_NOT_FOUND = 1;
    public static final int RESPONSE_RECOVERY_NOT_SUPPORTED = 2;
    public static final int RESPONSE_CLEANUP_FAILED = 3;

    private ByteBuf buf;

    public LogoutResponseHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public LogoutResponseHeader init() {
        Bhs.init(buf, Opcode.LOGOUT_RESPONSE.code(), Bhs.FINAL_BIT);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    /** One of the RESPONSE_ constants. */
    public int response() {
        return buf.getUnsignedByte(RESPONSE_OFFSET);
    }

    public LogoutResponseHeader response(int response) {
        buf.setByte(RESPONSE_OFFSET, response);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public LogoutResponseHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public LogoutResponseHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public LogoutResponseHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public LogoutResponseHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    public int time2Wait() {
        return buf.getUnsignedShort(TIME2WAIT_OFFSET);
    }

    public LogoutResponseHeader time2Wait(int seconds) {
        buf.setShort(TIME2WAIT_OFFSET, seconds);
        return this;
    }

    public int time2Retain() {
        return buf.getUnsignedShort(TIME2RETAIN_OFFSET);
    }

    public LogoutResponseHeader time2Retain(int seconds) {
        buf.setShort(TIME2RETAIN_OFFSET, seconds);
        return this;
    }
}
