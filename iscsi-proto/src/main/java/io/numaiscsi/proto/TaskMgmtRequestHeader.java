package io.numaiscsi.proto;

/** Task Management Function Request BHS, RFC 7143 11.5. Reusable flyweight. */
public final class TaskMgmtRequestHeader extends InitiatorBhsFlyweight<TaskMgmtRequestHeader>
        implements LunField<TaskMgmtRequestHeader> {
    public static final int FUNCTION_MASK = 0x7f;
    public static final int REFERENCED_TASK_TAG_OFFSET = 20;
    public static final int REF_CMD_SN_OFFSET = 32;
    public static final int EXP_DATA_SN_OFFSET = 36;

    /** Raw function code; see {@link TaskManagementFunction#of(int)}. */
    public int function() {
        return buf.getByte(Bhs.FLAGS_OFFSET) & FUNCTION_MASK;
    }

    public int referencedTaskTag() {
        return buf.getInt(REFERENCED_TASK_TAG_OFFSET);
    }

    public int refCmdSN() {
        return buf.getInt(REF_CMD_SN_OFFSET);
    }

    public int expDataSN() {
        return buf.getInt(EXP_DATA_SN_OFFSET);
    }
}
