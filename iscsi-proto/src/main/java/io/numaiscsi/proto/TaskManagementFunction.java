package io.numaiscsi.proto;

/** Task Management Function Request function codes, RFC 7143 11.5.1 and RFC 7144 (SAM-4 additions). */
public enum TaskManagementFunction {
    ABORT_TASK(1),
    ABORT_TASK_SET(2),
    CLEAR_ACA(3),
    CLEAR_TASK_SET(4),
    LOGICAL_UNIT_RESET(5),
    TARGET_WARM_RESET(6),
    TARGET_COLD_RESET(7),
    TASK_REASSIGN(8),
    QUERY_TASK(9),
    QUERY_TASK_SET(10),
    I_T_NEXUS_RESET(11),
    QUERY_ASYNCHRONOUS_EVENT(12);

    private static final TaskManagementFunction[] BY_CODE = Codes.index(values(), 128, TaskManagementFunction::code);

    private final int code;

    TaskManagementFunction(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Null for unknown codes. */
    public static TaskManagementFunction of(int code) {
        return Codes.lookup(BY_CODE, code);
    }
}
