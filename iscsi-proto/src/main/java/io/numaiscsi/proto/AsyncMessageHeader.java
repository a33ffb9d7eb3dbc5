package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Asynchronous Message BHS, RFC 7143 11.9. Reusable flyweight. */
public final class AsyncMessageHeader {
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int ASYNC_EVENT_OFFSET = 36;
    public static final int ASYNC_VCODE_OFFSET = 37;
    public static final int PARAMETER1_OFFSET = 38;
    public static final int PARAMETER2_OFFSET = 40;
    public static final int PARAMETER3_OFFSET = 42;

    public static final int EVENT_SCSI_ASYNC_EVENT = 0;
    public static final int EVENT_LOGOUT_REQUEST = 1;
    public static final int EVENT_CONNECTION_DROP = 2;
    public static final int EVENT_SESSION_DROP = 3;
    public static final int EVENT_NEGOTIATION_REQUEST = 4;
    public static final int EVENT_TASK_TERMINATION = 5;
    public static final int EVENT_VENDOR_SPECIFIC = 255;

    private ByteBuf buf;

    public AsyncMessageHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS, sets the opcode, byte 1 bit 7 and the ITT 0xffffffff the RFC requires. */
    public AsyncMessageHeader init() {
        Bhs.init(buf, Opcode.ASYNC_MESSAGE.code(), Bhs.FINAL_BIT);
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, Bhs.RESERVED_TAG);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public AsyncMessageHeader lun(long lun) {
        buf.setLong(LUN_OFFSET, lun);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public AsyncMessageHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public AsyncMessageHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public AsyncMessageHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    /** One of the EVENT_ constants. */
    public int asyncEvent() {
        return buf.getUnsignedByte(ASYNC_EVENT_OFFSET);
    }

    public AsyncMessageHeader asyncEvent(int event) {
        buf.setByte(ASYNC_EVENT_OFFSET, event);
        return this;
    }

    public int asyncVCode() {
        return buf.getUnsignedByte(ASYNC_VCODE_OFFSET);
    }

    public AsyncMessageHeader asyncVCode(int vcode) {
        buf.setByte(ASYNC_VCODE_OFFSET, vcode);
        return this;
    }

    public int parameter1() {
        return buf.getUnsignedShort(PARAMETER1_OFFSET);
    }

    public AsyncMessageHeader parameter1(int value) {
        buf.setShort(PARAMETER1_OFFSET, value);
        return this;
    }

    public int parameter2() {
        return buf.getUnsignedShort(PARAMETER2_OFFSET);
    }

    public AsyncMessageHeader parameter2(int value) {
        buf.setShort(PARAMETER2_OFFSET, value);
        return this;
    }

    public int parameter3() {
        return buf.getUnsignedShort(PARAMETER3_OFFSET);
    }

    public AsyncMessageHeader parameter3(int value) {
        buf.setShort(PARAMETER3_OFFSET, value);
        return this;
    }
}
