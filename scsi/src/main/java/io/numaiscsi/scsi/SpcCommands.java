package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.util.List;

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
      case TEST_UNIT_READY:
      case PRE_FETCH:
      case START_STOP_UNIT:
      case PREVENT_ALLOW_MEDIUM_REMOVAL:
        t.completeGood();
        return;
      case RESERVE:
        finish(t, lu.reservations.reserve(t.nexus));
        return;
      case RELEASE:
        finish(t, lu.reservations.release(t.nexus));
        return;
      case MODE_SELECT:
        finish(t, lu.modePages.select(t, lu.unitAttentions));
        return;
      case PERSISTENT_RESERVE_OUT:
        persistentReserveOut(t, lu, target);
        return;
      default:
        break;
    }
    ByteBuf out = target.alloc.buffer(256, MAX_RESPONSE);
    SenseReason r;
    switch (t.kind) {
      case INQUIRY:
        r = InquiryPages.inquiry(t, lu, out);
        break;
      case REQUEST_SENSE:
        r = requestSense(t, lu, out);
        break;
      case REPORT_LUNS:
        r = target.reportLuns(t, out);
        break;
      case REPORT_SUPPORTED_OPERATION_CODES:
        r = SupportedOpcodes.report(t, out);
        break;
      case READ_CAPACITY_10:
        SbcCommands.readCapacity10(t, out);
        r = null;
        break;
      case READ_CAPACITY_16:
        SbcCommands.readCapacity16(t, out);
        r = null;
        break;
      case GET_LBA_STATUS:
        SbcCommands.getLbaStatus(t, out);
        r = null;
        break;
      case READ_DEFECT_DATA:
        SbcCommands.readDefectData(t, out);
        r = null;
        break;
      case MODE_SENSE:
        r = lu.modePages.sense(t, lu, out);
        break;
      case PERSISTENT_RESERVE_IN:
        r = lu.reservations.persistent.in(t.cdb[1] & 0x1F, out);
        break;
      default:
        r = SenseReason.INVALID_COMMAND_OPERATION_CODE;
    }
    if (r != null) {
      out.release();
      if (t.kind == CommandKind.REPORT_SUPPORTED_OPERATION_CODES && r == SenseReason.INVALID_FIELD_IN_CDB) {
        // the field pointer tells an initiator the command exists but the REPORTING OPTIONS do not fit the opcode
        t.completeFailedAtCdbField(r, SupportedOpcodes.REPORTING_OPTIONS_BYTE);
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

  private static void finish(ScsiTask t, SenseReason r) {
    if (r == null) {
      t.completeGood();
    } else {
      t.completeFailed(r);
    }
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

  /**
   * PERSISTENT RESERVE OUT. PREEMPT AND ABORT also aborts the preempted nexuses' tasks (SPC-4 5.13.11.2.6): those
   * the unit is executing, and, through the transport, those not yet here; it completes once none of them can still
   * touch the medium.
   */
  private static void persistentReserveOut(ScsiTask t, LogicalUnit lu, ScsiTarget target) {
    SenseReason r = reserveOut(t, lu);
    List<ItNexus> victims = lu.reservations.persistent.preempted();
    if (r != null || (t.cdb[1] & 0x1F) != PersistentReservations.PREEMPT_AND_ABORT || victims.isEmpty()) {
      finish(t, r);
      return;
    }
    for (ItNexus victim : victims) {
      target.transportAborts().abort(victim, lu.lun);
    }
    if (lu.tasks.abortTasksOf(victims, t) == 0) {
      t.completeGood();
    }
  }

  private static SenseReason reserveOut(ScsiTask t, LogicalUnit lu) {
    ByteBuf p = t.dataOut;
    if (p == null || p.readableBytes() < t.dataOutLength) {
      return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
    }
    byte[] list = new byte[PersistentReservations.PARAMETER_LIST_LENGTH];
    p.getBytes(p.readerIndex(), list);
    if (t.dataOutLength != PersistentReservations.PARAMETER_LIST_LENGTH) {
      // a longer list only makes sense with SPEC_I_PT, which is not supported
      return (list[20] & 0x08) != 0
          ? SenseReason.INVALID_FIELD_IN_PARAMETER_LIST : SenseReason.PARAMETER_LIST_LENGTH_ERROR;
    }
    int serviceAction = t.cdb[1] & 0x1F;
    int scope = (t.cdb[2] & 0xF0) >>> 4;
    int type = t.cdb[2] & 0x0F;
    if (lu.reservations.spc2ReservedByOther(t.nexus)) {
      return SenseReason.RESERVATION_CONFLICT;
    }
    return lu.reservations.persistent.out(t.nexus, serviceAction, scope, type, list);
  }
}
