package io.numaiscsi.proto;

/** Task Management Function Response BHS, RFC 7143 11.6. Reusable flyweight. */
public final class TaskMgmtResponseHeader extends TargetBhsFlyweight<TaskMgmtResponseHeader> {
    public static final int RESPONSE_OFFSET = 2;

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public TaskMgmtResponseHeader init() {
        return init(Opcode.TASK_MGMT_RESPONSE, Bhs.FINAL_BIT);
    }

    /** Raw code; see {@link TmfResponse#of(int)}. */
    public int response() {
        return buf.getUnsignedByte(RESPONSE_OFFSET);
    }

    public TaskMgmtResponseHeader response(int response) {
        return setByte(RESPONSE_OFFSET, response);
    }

    public TaskMgmtResponseHeader response(TmfResponse response) {
        return response(response.code());
    }
}
