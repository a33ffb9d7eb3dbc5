package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Execute steps of the control-path commands (SPC-4 and the non-data SBC-3 commands). They complete
 * synchronously: build the full parameter data, then clip it to the CDB's allocation length.
 */
final class SpcCommands {
    private static final int MAX_RESPONSE = 64 * 1024;

    private SpcCommands() {}

    static void execute(ScsiTask t, ScsiTarget target) {
        LogicalUnit lu = t.unit;
        switch (t.kind) {
            case TEST_UNIT_READY, START_STOP_UNIT, PREVENT_ALLOW_MEDIUM_REMOVAL -> {
                t.completeGood();
                return;
            }
            case RESERVE -> {
                finish(t, lu.reservations.reserve(t.nexus));
                return;
            }
            case RELEASE -> {
                finish(t, lu.reservations.release(t.nexus));
                return;
            }
            case MODE_SELECT -> {
                modeSelect(t, lu);
                return;
            }
            case PERSISTENT_RESERVE_OUT -> {
                PersistentReserveOut.execute(t, lu, target);
                return;
            }
            case SET_TARGET_PORT_GROUPS -> {
                SetTargetPortGroups.execute(t, lu);
                return;
            }
            default -> {}
        }
        ByteBuf out = target.alloc.buffer(256, MAX_RESPONSE);
        SenseReason r;
        switch (t.kind) {
            case INQUIRY -> r = InquiryPages.inquiry(t, lu, out);
            case REQUEST_SENSE -> r = requestSense(t, lu, out);
            case REPORT_LUNS -> r = target.reportLuns(t, out);
            case REPORT_SUPPORTED_OPERATION_CODES -> r = SupportedOpcodes.report(t, out);
            case READ_CAPACITY_10 -> {
                SbcCommands.readCapacity10(t, out);
                r = null;
            }
            case READ_CAPACITY_16 -> {
                SbcCommands.readCapacity16(t, out);
                r = null;
            }
            case GET_LBA_STATUS -> {
                SbcCommands.getLbaStatus(t, out);
                r = null;
            }
            case READ_DEFECT_DATA -> {
                SbcCommands.readDefectData(t, out);
                r = null;
            }
            case MODE_SENSE -> r = lu.modePages.sense(t, lu, out);
            case LOG_SENSE -> {
                if (!LogSense.execute(t, lu, out)) {
                    out.release(); // the task was failed with its field pointer
                    return;
                }
                r = null;
            }
            case REPORT_TARGET_PORT_GROUPS -> {
                boolean extended = (t.cdb[1] & 0xE0) >>> 5 == TargetPortGroups.EXTENDED_FORMAT;
                if (lu.ownership() == null) {
                    lu.portGroups().report(extended, out);
                } else {
                    lu.portGroups()
                            .report(
                                    extended,
                                    out,
                                    lu.ownership().state(),
                                    lu.ownership().ownerGroup(),
                                    lu.movedByStpg());
                }
                r = null;
            }
            case PERSISTENT_RESERVE_IN ->
                r = PersistentReserveIn.write(lu.reservations.persistent, t.cdb[1] & 0x1F, out);
            case RECEIVE_COPY_RESULTS -> r = receiveCopyResults(t, lu, out);
            default -> r = SenseReason.INVALID_COMMAND_OPERATION_CODE;
        }
        if (r != null) {
            out.release();
            if (t.kind == CommandKind.REPORT_SUPPORTED_OPERATION_CODES && r == SenseReason.INVALID_FIELD_IN_CDB) {
                // the field pointer tells an initiator the command exists but the REPORTING OPTIONS do not fit the
                // opcode
                t.completeFailedAtCdbField(r, SupportedOpcodes.REPORTING_OPTIONS_BYTE);
            } else if (t.kind == CommandKind.RECEIVE_COPY_RESULTS && r == SenseReason.INVALID_FIELD_IN_CDB) {
                t.completeFailedAtCdbField(r, 2); // no copy with that LIST IDENTIFIER
            } else {
                t.completeFailed(r);
            }
            return;
        }
        if (out.writerIndex() > t.allocationLength) {
            out.writerIndex(t.allocationLength);
        }
        t.dataIn = out;
        t.completeGood();
    }

    /** MODE SELECT: the new values are current at once; with SP=1 the status waits until they are saved. */
    private static void modeSelect(ScsiTask t, LogicalUnit lu) {
        SenseReason r = lu.modePages.select(t, lu.unitAttentions);
        if (r != null || !ModePages.saves(t)) {
            finish(t, r);
            return;
        }
        lu.modePages.saveCurrent(failure -> lu.thread()
                .runHereOrQueue(() -> finish(t, failure == null ? null : SenseReason.INTERNAL_TARGET_FAILURE)));
    }

    private static void finish(ScsiTask t, SenseReason r) {
        if (r == null) {
            t.completeGood();
        } else {
            t.completeFailed(r);
        }
    }

    /** RECEIVE COPY RESULTS (LID1); the decoder let only COPY STATUS and OPERATING PARAMETERS through. */
    private static SenseReason receiveCopyResults(ScsiTask t, LogicalUnit lu, ByteBuf out) {
        if ((t.cdb[1] & 0x1F) == 0x03) {
            CopyManagerLimits.operatingParameters(lu, out);
            return null;
        }
        return lu.copyResults.copyStatus(t.nexus, t.cdb[2] & 0xFF, out);
    }

    /**
     * REQUEST SENSE: a pending unit attention is reported (and cleared), else a running sanitize with its progress, else
     * NO SENSE.
     */
    private static SenseReason requestSense(ScsiTask t, LogicalUnit lu, ByteBuf out) {
        boolean descriptor = (t.cdb[1] & 0x01) != 0;
        SenseReason reason;
        if (lu == null) {
            reason = SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        } else {
            SenseReason ua = lu.unitAttentions.poll(t.nexus);
            reason = ua != null ? ua : SenseReason.NO_SENSE;
        }
        byte[] sense = new byte[SenseData.MAX_LENGTH];
        int length = reason == SenseReason.NO_SENSE && lu.sanitize.running()
                ? SenseData.encodeProgress(sense, SenseReason.SANITIZE_IN_PROGRESS, descriptor, lu.sanitize.progress())
                : SenseData.encode(sense, reason, descriptor, 0, false);
        out.writeBytes(sense, 0, length);
        return null;
    }
}
