package io.numaiscsi.scsi;

/**
 * The execute step a decoded CDB is bound to, with how reservations treat it (SPC-4 5.9.1 table 63,
 * SBC-3 4.17 table 13).
 */
enum CommandKind {
    TEST_UNIT_READY(Access.ALWAYS, false),
    REQUEST_SENSE(Access.ALWAYS, true),
    INQUIRY(Access.ALWAYS, true),
    REPORT_LUNS(Access.ALWAYS, true),
    REPORT_SUPPORTED_OPERATION_CODES(Access.ALWAYS, false),
    REPORT_TARGET_PORT_GROUPS(Access.ALWAYS, true),
    // moves the unit between gateways: a reservation holder's business, as a write would be
    SET_TARGET_PORT_GROUPS(Access.WRITE, false),
    READ_CAPACITY_10(Access.ALWAYS, false),
    READ_CAPACITY_16(Access.ALWAYS, false),
    READ(Access.READ, false),
    WRITE(Access.WRITE, false),
    WRITE_AND_VERIFY(Access.WRITE, false),
    VERIFY(Access.READ, false),
    PRE_FETCH(Access.READ, false),
    SYNCHRONIZE_CACHE(Access.WRITE, false),
    UNMAP(Access.WRITE, false),
    WRITE_SAME(Access.WRITE, false),
    COMPARE_AND_WRITE(Access.WRITE, false),
    ORWRITE(Access.WRITE, false),
    WRITE_ATOMIC(Access.WRITE, false),
    READ_DEFECT_DATA(Access.READ, false),
    GET_LBA_STATUS(Access.READ, false),
    MODE_SENSE(Access.READ, false),
    MODE_SELECT(Access.WRITE, false),
    LOG_SENSE(Access.ALWAYS, true),
    START_STOP_UNIT(Access.WRITE, false),
    PREVENT_ALLOW_MEDIUM_REMOVAL(Access.READ, false),
    SANITIZE(Access.WRITE, false),
    // RESERVE/RELEASE decide conflicts themselves (they need the registrations)
    RESERVE(Access.ALWAYS, false),
    RELEASE(Access.ALWAYS, true),
    PERSISTENT_RESERVE_IN(Access.ALWAYS, false),
    PERSISTENT_RESERVE_OUT(Access.ALWAYS, false),
    // SPC-4 table 63 lists both as conflicting under every type; the copy's source and destination are checked on their
    // own units as a READ and a WRITE of the issuing nexus (ExtendedCopy)
    EXTENDED_COPY(Access.WRITE, false),
    RECEIVE_COPY_RESULTS(Access.WRITE, false);

    /** How a persistent reservation held by another I_T nexus treats the command. */
    enum Access {
        /** Allowed under every reservation type. */
        ALWAYS,
        /** Allowed under Write Exclusive types, conflicts under Exclusive Access types. */
        READ,
        /** Conflicts under every type. */
        WRITE
    }

    final Access access;
    /** Allowed while another I_T nexus holds an SPC-2 reservation. */
    final boolean allowedUnderSpc2Reservation;

    /** Changes the blocks of the medium: refused on a read-only unit (SYNCHRONIZE CACHE and MODE SELECT do not). */
    boolean writesMedium() {
        return switch (this) {
            case WRITE, WRITE_AND_VERIFY, UNMAP, WRITE_SAME, COMPARE_AND_WRITE, ORWRITE, WRITE_ATOMIC, SANITIZE -> true;
            default -> false;
        };
    }

    /** Reads or changes the blocks of the medium: refused while the unit is in the sanitize failure state. */
    boolean accessesMedium() {
        return switch (this) {
            case READ, VERIFY, PRE_FETCH, SYNCHRONIZE_CACHE, GET_LBA_STATUS -> true;
            default -> writesMedium() && this != SANITIZE;
        };
    }

    CommandKind(Access access, boolean allowedUnderSpc2Reservation) {
        this.access = access;
        this.allowedUnderSpc2Reservation = allowedUnderSpc2Reservation;
    }
}
