package io.numaiscsi.scsi;

/** PERSISTENT RESERVE OUT service actions (SPC-4 6.16.2), by their SERVICE ACTION code. */
enum ProutServiceAction {
    REGISTER,
    RESERVE,
    RELEASE,
    CLEAR,
    PREEMPT,
    PREEMPT_AND_ABORT,
    REGISTER_AND_IGNORE_EXISTING_KEY,
    REGISTER_AND_MOVE;

    private static final ProutServiceAction[] BY_CODE = values();

    /** The service action with this code, or null for a code SPC-4 does not define. */
    static ProutServiceAction of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Registers (or unregisters) the sender's key. */
    boolean registers() {
        return this == REGISTER || this == REGISTER_AND_IGNORE_EXISTING_KEY;
    }
}
