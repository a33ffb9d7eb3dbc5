package io.numaiscsi.proto;

/** BHS opcodes, RFC 7143 10.2.1.2. Initiator opcodes are 0x00-0x1f, target opcodes 0x20-0x3f. */
public enum Opcode {
    NOP_OUT(0x00),
    SCSI_COMMAND(0x01),
    TASK_MGMT_REQUEST(0x02),
    LOGIN_REQUEST(0x03),
    TEXT_REQUEST(0x04),
    SCSI_DATA_OUT(0x05),
    LOGOUT_REQUEST(0x06),
    SNACK_REQUEST(0x10),
    NOP_IN(0x20),
    SCSI_RESPONSE(0x21),
    TASK_MGMT_RESPONSE(0x22),
    LOGIN_RESPONSE(0x23),
    TEXT_RESPONSE(0x24),
    SCSI_DATA_IN(0x25),
    LOGOUT_RESPONSE(0x26),
    R2T(0x31),
    ASYNC_MESSAGE(0x32),
    REJECT(0x3f);

    private static final Opcode[] BY_CODE = new Opcode[64];

    static {
        for (Opcode op : values()) {
            if (BY_CODE[op.code] != null) {
                throw new IllegalStateException("duplicate opcode 0x" + Integer.toHexString(op.code));
            }
            BY_CODE[op.code] = op;
        }
    }

    private final int code;

    Opcode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public boolean fromInitiator() {
        return code < 0x20;
    }

    /** The opcode with this 6-bit code; null for reserved or out-of-range codes. */
    public static Opcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
