package io.numaiscsi.iser;

/** Completion status codes (enum ibv_wc_status values of libibverbs) and the opcodes this transport posts. */
public final class WorkCompletion {
    public static final int SUCCESS = 0;
    public static final int LOC_LEN_ERR = 1;
    public static final int LOC_QP_OP_ERR = 2;
    public static final int LOC_PROT_ERR = 4;
    public static final int WR_FLUSH_ERR = 5;
    public static final int REM_ACCESS_ERR = 10;
    public static final int RETRY_EXC_ERR = 12;
    public static final int RNR_RETRY_EXC_ERR = 13;

    private WorkCompletion() {}

    /** A short name for logs (called on the error path only). */
    public static String statusName(int status) {
        return switch (status) {
            case SUCCESS -> "SUCCESS";
            case LOC_LEN_ERR -> "LOC_LEN_ERR";
            case LOC_QP_OP_ERR -> "LOC_QP_OP_ERR";
            case LOC_PROT_ERR -> "LOC_PROT_ERR";
            case WR_FLUSH_ERR -> "WR_FLUSH_ERR";
            case REM_ACCESS_ERR -> "REM_ACCESS_ERR";
            case RETRY_EXC_ERR -> "RETRY_EXC_ERR";
            case RNR_RETRY_EXC_ERR -> "RNR_RETRY_EXC_ERR";
            default -> "status " + status;
        };
    }
}
