package io.numaiscsi.scsi;

/** PERSISTENT RESERVE IN service actions (SPC-4 6.15.1), by their SERVICE ACTION code. */
enum PrinServiceAction {
    READ_KEYS,
    READ_RESERVATION,
    REPORT_CAPABILITIES,
    READ_FULL_STATUS;

    private static final PrinServiceAction[] BY_CODE = values();

    /** The service action with this code, or null for a code SPC-4 does not define. */
    static PrinServiceAction of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
