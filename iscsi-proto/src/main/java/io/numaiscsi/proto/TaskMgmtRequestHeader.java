package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Task Management Function Request BHS, RFC 7143 11.5. Reusable flyweight. */
public final class TaskMgmtRequestHeader {
    public static final int FUNCTION_OFFSET = 1;
    public static final int FUNCTION_MASK = 0x7f;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int REFERENCED_TASK_TAG_OFFSET = 20;
    public static final int CMD_SN_OFFSET = 24;
    public static final int EXP_STAT_SN_OFFSET = 28;
    public static final int REF_CMD_SN_OFFSET = 32;
    public static final int EXP_DATA_SN_OFFSET = 36;

    private ByteBuf buf;

    public TaskMgmtRequestHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean immediate() {
        return Bhs.immediate(buf);
    }

    /** Raw function code; see {@link TaskManagementFunction#of(int)}. */
    public int function() {
        return buf.getByte(FUNCTION_OFFSET) & FUNCTION_MASK;
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public int referencedTaskTag() {
        return buf.getInt(REFERENCED_TASK_TAG_OFFSET);
    }

    public int cmdSN() {
        return buf.getInt(CMD_SN_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }

    public int refCmdSN() {
        return buf.getInt(REF_CMD_SN_OFFSET);
    }

    public int expDataSN() {
        return buf.getInt(EXP_DATA_SN_OFFSET);
    }
}
