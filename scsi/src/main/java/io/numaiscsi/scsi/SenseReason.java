package io.numaiscsi.scsi;

/**
 * Why a command did not end GOOD (LIO's sense_reason_t). Most become CHECK CONDITION with the sense
 * key / ASC / ASCQ here; a few are bare status values with no sense data.
 */
public enum SenseReason {
    NO_SENSE(0x0, 0x00, 0x00),
    LOGICAL_UNIT_NOT_READY(0x2, 0x04, 0x00),
    SANITIZE_IN_PROGRESS(0x2, 0x04, 0x1B),
    /** ALUA: this gateway's target port group is in standby (SPC-4 5.15.2.4.4). */
    TARGET_PORT_IN_STANDBY_STATE(0x2, 0x04, 0x0B),
    /** ALUA: this gateway's target port group is unavailable (SPC-4 5.15.2.4.5). */
    TARGET_PORT_IN_UNAVAILABLE_STATE(0x2, 0x04, 0x0C),
    /** ALUA: the unit is moving between gateways (SPC-4 5.15.2.5); initiators retry. */
    ASYMMETRIC_ACCESS_STATE_TRANSITION(0x2, 0x04, 0x0A),
    /** SET TARGET PORT GROUPS could not make the change (SPC-4 6.37). */
    SET_TARGET_PORT_GROUPS_COMMAND_FAILED(0x4, 0x67, 0x0A),
    UNRECOVERED_READ_ERROR(0x3, 0x11, 0x00),
    WRITE_ERROR(0x3, 0x0C, 0x00),
    SANITIZE_COMMAND_FAILED(0x3, 0x31, 0x03),
    INTERNAL_TARGET_FAILURE(0x4, 0x44, 0x00),
    PARAMETER_LIST_LENGTH_ERROR(0x5, 0x1A, 0x00),
    INVALID_COMMAND_OPERATION_CODE(0x5, 0x20, 0x00),
    LBA_OUT_OF_RANGE(0x5, 0x21, 0x00),
    INVALID_FIELD_IN_CDB(0x5, 0x24, 0x00),
    LOGICAL_UNIT_NOT_SUPPORTED(0x5, 0x25, 0x00),
    INVALID_FIELD_IN_PARAMETER_LIST(0x5, 0x26, 0x00),
    TOO_MANY_TARGET_DESCRIPTORS(0x5, 0x26, 0x06),
    UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE(0x5, 0x26, 0x07),
    TOO_MANY_SEGMENT_DESCRIPTORS(0x5, 0x26, 0x08),
    UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE(0x5, 0x26, 0x09),
    /** A command with the same list identifier from the same I_T nexus is still running (EXTENDED COPY). */
    OPERATION_IN_PROGRESS(0x5, 0x00, 0x16),
    INSUFFICIENT_RESOURCES(0x5, 0x55, 0x03),
    INVALID_RELEASE_OF_PERSISTENT_RESERVATION(0x5, 0x26, 0x04),
    SAVING_PARAMETERS_NOT_SUPPORTED(0x5, 0x39, 0x00),
    INSUFFICIENT_REGISTRATION_RESOURCES(0x5, 0x55, 0x04),
    INVALID_FIELD_IN_INFORMATION_UNIT(0x5, 0x0E, 0x03),
    POWER_ON_RESET_OCCURRED(0x6, 0x29, 0x00),
    BUS_DEVICE_RESET_FUNCTION_OCCURRED(0x6, 0x29, 0x03),
    I_T_NEXUS_LOSS_OCCURRED(0x6, 0x29, 0x07),
    MODE_PARAMETERS_CHANGED(0x6, 0x2A, 0x01),
    ASYMMETRIC_ACCESS_STATE_CHANGED(0x6, 0x2A, 0x06),
    RESERVATIONS_PREEMPTED(0x6, 0x2A, 0x03),
    RESERVATIONS_RELEASED(0x6, 0x2A, 0x04),
    REGISTRATIONS_PREEMPTED(0x6, 0x2A, 0x05),
    CAPACITY_DATA_HAS_CHANGED(0x6, 0x2A, 0x09),
    THIN_PROVISIONING_SOFT_THRESHOLD_REACHED(0x6, 0x38, 0x07),
    REPORTED_LUNS_DATA_HAS_CHANGED(0x6, 0x3F, 0x0E),
    WRITE_PROTECTED(0x7, 0x27, 0x00),
    SPACE_ALLOCATION_FAILED_WRITE_PROTECT(0x7, 0x27, 0x07),
    MISCOMPARE_DURING_VERIFY_OPERATION(0xE, 0x1D, 0x00),
    /** EXTENDED COPY: an error the copy manager found in a segment before or while copying (no finer code fits). */
    COPY_ABORTED(0xA, 0x00, 0x00),
    THIRD_PARTY_DEVICE_FAILURE(0xA, 0x0D, 0x01),
    COPY_TARGET_DEVICE_NOT_REACHABLE(0xA, 0x0D, 0x02),
    INCORRECT_COPY_TARGET_DEVICE_TYPE(0xA, 0x0D, 0x03),
    UNEXPECTED_INEXACT_SEGMENT(0xA, 0x26, 0x0A),
    /** A Data-Out sequence error (wrong DataSN or offset): the command is aborted, the connection kept. */
    DATA_PHASE_ERROR(0xB, 0x4B, 0x00),
    /** Status only: another I_T nexus holds a conflicting reservation. */
    RESERVATION_CONFLICT(ScsiStatus.RESERVATION_CONFLICT),
    /** Status only. */
    BUSY(ScsiStatus.BUSY),
    /** Status only. */
    TASK_SET_FULL(ScsiStatus.TASK_SET_FULL),
    /** A task ended by task management before it ran; the transport discards it unless TAS asks for a status. */
    TASK_ABORTED(ScsiStatus.TASK_ABORTED);

    private final int status;
    private final int senseKey;
    private final int asc;
    private final int ascq;

    SenseReason(int senseKey, int asc, int ascq) {
        this.status = ScsiStatus.CHECK_CONDITION;
        this.senseKey = senseKey;
        this.asc = asc;
        this.ascq = ascq;
    }

    SenseReason(int status) {
        this.status = status;
        this.senseKey = 0;
        this.asc = 0;
        this.ascq = 0;
    }

    /** SAM status byte this reason completes a command with. */
    public int status() {
        return status;
    }

    public boolean hasSense() {
        return status == ScsiStatus.CHECK_CONDITION;
    }

    public int senseKey() {
        return senseKey;
    }

    public int asc() {
        return asc;
    }

    public int ascq() {
        return ascq;
    }

    boolean isUnitAttention() {
        return senseKey == 0x6;
    }
}
