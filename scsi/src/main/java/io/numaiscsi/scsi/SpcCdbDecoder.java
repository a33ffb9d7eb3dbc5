package io.numaiscsi.scsi;

/**
 * The SPC-4 half of {@link CdbDecoder} (LIO's spc_parse_cdb): the commands every device type has, some of them
 * answered for a LUN that does not exist (INQUIRY, REPORT LUNS, REQUEST SENSE).
 */
final class SpcCdbDecoder {
    private SpcCdbDecoder() {}

    /** Binds {@code t} to the SPC-4 command of opcode {@code op}; {@code lu} null: the LUN does not exist. */
    static SenseReason decode(ScsiTask t, LogicalUnit lu, byte[] c, int op) {
        switch (op) {
            case 0x03 -> {
                t.kind = CommandKind.REQUEST_SENSE;
                t.allocationLength = Cdb.u8(c, 4);
                return null;
            }
            case 0x12 -> { // INQUIRY
                if ((c[1] & 0x02) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // CmdDt is obsolete
                }
                if ((c[1] & 0x01) == 0 && c[2] != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // page code without EVPD
                }
                t.kind = CommandKind.INQUIRY;
                t.allocationLength = Cdb.u16(c, 3);
                return null;
            }
            case 0xA0 -> { // REPORT LUNS
                int select = Cdb.u8(c, 2);
                long allocation = Cdb.u32(c, 6);
                if (select > 2 || allocation < 16) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.REPORT_LUNS;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, allocation);
                return null;
            }
            case 0xA3 -> { // MAINTENANCE IN
                if ((c[1] & 0x1F) == 0x0A && lu != null && lu.portGroups().configured()) {
                    // REPORT TARGET PORT GROUPS; without ALUA (TPGS 00b) the service action is as unknown as any other
                    if ((c[1] & 0xE0) >>> 5 > TargetPortGroups.EXTENDED_FORMAT) {
                        return SenseReason.INVALID_FIELD_IN_CDB;
                    }
                    t.kind = CommandKind.REPORT_TARGET_PORT_GROUPS;
                    t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 6));
                    return null;
                }
                if ((c[1] & 0x1F) != 0x0C || (c[2] & 0x07) > 3) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.REPORT_SUPPORTED_OPERATION_CODES;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 6));
                return null;
            }
            default -> {}
        }
        if (lu == null) {
            return SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        }
        switch (op) {
            case 0x00 -> {
                t.kind = CommandKind.TEST_UNIT_READY;
                return null;
            }
            case 0x1A -> { // MODE SENSE(6)
                t.kind = CommandKind.MODE_SENSE;
                t.allocationLength = Cdb.u8(c, 4);
                return null;
            }
            case 0x5A -> { // MODE SENSE(10)
                t.kind = CommandKind.MODE_SENSE;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0x15, 0x55 -> { // MODE SELECT(6), MODE SELECT(10)
                if ((c[1] & 0x10) == 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // PF must be 1 (SP: ModePages)
                }
                t.kind = CommandKind.MODE_SELECT;
                t.dataOutLength = op == 0x15 ? Cdb.u8(c, 4) : Cdb.u16(c, 7);
                return null;
            }
            case 0x1B -> { // START STOP UNIT
                int powerCondition = (c[4] & 0xF0) >>> 4;
                if (powerCondition == 0 && (c[4] & 0x02) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // LOEJ: the medium is not removable
                }
                t.kind = CommandKind.START_STOP_UNIT;
                return null;
            }
            case 0x4D -> { // LOG SENSE: the fields are checked by LogSense, which names them in the field pointer
                t.kind = CommandKind.LOG_SENSE;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0x1E -> { // PREVENT ALLOW MEDIUM REMOVAL
                t.kind = CommandKind.PREVENT_ALLOW_MEDIUM_REMOVAL;
                return null;
            }
            case 0x16, 0x17 -> { // RESERVE(6), RELEASE(6)
                if ((c[1] & 0x1F) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // third party / extents
                }
                t.kind = op == 0x16 ? CommandKind.RESERVE : CommandKind.RELEASE;
                return null;
            }
            case 0x56, 0x57 -> { // RESERVE(10), RELEASE(10)
                if ((c[1] & 0x13) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // 3RDPTY, LONGID
                }
                t.kind = op == 0x56 ? CommandKind.RESERVE : CommandKind.RELEASE;
                return null;
            }
            case 0x5E -> { // PERSISTENT RESERVE IN
                if (PrinServiceAction.of(c[1] & 0x1F) == null) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.PERSISTENT_RESERVE_IN;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0xA4 -> { // MAINTENANCE OUT
                if ((c[1] & 0x1F) != 0x0A || lu.ownership() == null) {
                    // SET TARGET PORT GROUPS only for a unit that moves between gateways (TPGS 11b)
                    return SenseReason.INVALID_COMMAND_OPERATION_CODE;
                }
                long parameterListLength = Cdb.u32(c, 6);
                if (parameterListLength > SetTargetPortGroups.MAX_PARAMETER_LIST_LENGTH) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.SET_TARGET_PORT_GROUPS;
                t.dataOutLength = (int) parameterListLength;
                return null;
            }
            case 0x5F -> { // PERSISTENT RESERVE OUT
                int serviceAction = c[1] & 0x1F;
                if (ProutServiceAction.of(serviceAction) == null) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                long parameterListLength = Cdb.u32(c, 5);
                if (parameterListLength < PersistentReservations.PARAMETER_LIST_LENGTH || parameterListLength > 4096) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.PERSISTENT_RESERVE_OUT;
                t.dataOutLength = (int) parameterListLength;
                return null;
            }
            case 0x83 -> { // EXTENDED COPY (LID1 only)
                if ((c[1] & 0x1F) != 0x00) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                long parameterListLength = Cdb.u32(c, 10);
                if ((parameterListLength > 0 && parameterListLength < CopyManagerLimits.HEADER_LENGTH)
                        || parameterListLength > CopyManagerLimits.MAX_PARAMETER_LIST_LENGTH) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.EXTENDED_COPY;
                t.dataOutLength = (int) parameterListLength;
                return null;
            }
            case 0x84 -> { // RECEIVE COPY RESULTS: COPY STATUS, OPERATING PARAMETERS
                int serviceAction = c[1] & 0x1F;
                if (serviceAction != 0x00 && serviceAction != 0x03) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.RECEIVE_COPY_RESULTS;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 10));
                return null;
            }
            default -> {
                return SenseReason.INVALID_COMMAND_OPERATION_CODE;
            }
        }
    }
}
