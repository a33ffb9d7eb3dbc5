package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Logout Request BHS, RFC 7143 11.14. Reusable flyweight. */
public final class LogoutRequestHeader {
    public static final int REASON_CODE_OFFSET = 1;
    public static final int REASON_CODE_MASK = 0x7f;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int CID_OFFSET = 20;
    public static final int CMD_SN_OFFSET = 24;
    public static final int EXP_STAT_SN_OFFSET = 28;

    public static final int REASON_CLOSE_SESSION = 0;
    public static final int REASON_CLOSE_CONNECTION = 1;
    public static final int REASON_REMOVE_CONNECTION_FOR_RECOVERY = 2;

    private ByteBuf buf;

    public LogoutRequestHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean immediate() {
        return Bhs.immediate(buf);
    }

    /** One of the REASON_ constants. */
    public int reasonCode() {
        return buf.getByte(REASON_CODE_OFFSET) & REASON_CODE_MASK;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public int cid() {
        return buf.getUnsignedShort(CID_OFFSET);
    }

    public int cmdSN() {
        return buf.getInt(CMD_SN_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }
}
