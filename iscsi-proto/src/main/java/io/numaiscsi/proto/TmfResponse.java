package io.numaiscsi.proto;

/** Task Management Function Response codes, RFC 7143 11.6.1 and RFC 7144. */
public enum TmfResponse {
    FUNCTION_COMPLETE(0),
    TASK_DOES_NOT_EXIST(1),
    LUN_DOES_NOT_EXIST(2),
    TASK_STILL_ALLEGIANT(3),
    TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED(4),
    FUNCTION_NOT_SUPPORTED(5),
    FUNCTION_AUTHORIZATION_FAILED(6),
    FUNCTION_SUCCEEDED(7),
    FUNCTION_REJECTED(255);

    private static final TmfResponse[] BY_CODE = Codes.index(values(), 256, TmfResponse::code);

    private final int code;

    TmfResponse(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static TmfResponse of(int code) {
        return Codes.lookup(BY_CODE, code);
    }
}
