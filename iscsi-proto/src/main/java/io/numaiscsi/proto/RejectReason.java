package io.numaiscsi.proto;

/** Reject PDU reason codes, RFC 7143 11.17.1. */
public enum RejectReason {
    DATA_DIGEST_ERROR(0x02),
    SNACK_REJECT(0x03),
    PROTOCOL_ERROR(0x04),
    COMMAND_NOT_SUPPORTED(0x05),
    IMMEDIATE_COMMAND_REJECT(0x06),
    TASK_IN_PROGRESS(0x07),
    INVALID_DATA_ACK(0x08),
    INVALID_PDU_FIELD(0x09),
    LONG_OP_REJECT(0x0a),
    WAITING_FOR_LOGOUT(0x0c);

    private static final RejectReason[] BY_CODE = Codes.index(values(), 256, RejectReason::code);

    private final int code;

    RejectReason(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Null for reserved or unknown codes. */
    public static RejectReason of(int code) {
        return Codes.lookup(BY_CODE, code);
    }
}
