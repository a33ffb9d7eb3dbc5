package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The logical units of one iSCSI target: routes tasks to their LU, answers REPORT LUNS and commands
 * to missing LUNs, and applies task management effects. Thread-safe.
 */
public final class ScsiTarget {
  private final String targetName;
  private final LogicalUnit[] byLun;
  private final List<LogicalUnit> units;
  final ByteBufAllocator alloc;

  public ScsiTarget(String targetName, List<LogicalUnit> units, ByteBufAllocator alloc) {
    this.targetName = Objects.requireNonNull(targetName, "targetName");
    this.alloc = Objects.requireNonNull(alloc, "alloc");
    List<LogicalUnit> sorted = new ArrayList<>(units);
    sorted.sort(Comparator.comparingInt(LogicalUnit::lun));
    int max = sorted.isEmpty() ? -1 : sorted.get(sorted.size() - 1).lun;
    byLun = new LogicalUnit[max + 1];
    for (LogicalUnit lu : sorted) {
      if (byLun[lu.lun] != null) {
        throw new IllegalArgumentException("target " + targetName + ": LUN " + lu.lun + " configured twice");
      }
      byLun[lu.lun] = lu;
    }
    for (LogicalUnit lu : sorted) {
      lu.attach(alloc);
    }
    this.units = List.copyOf(sorted);
  }

  public String targetName() {
    return targetName;
  }

  public LogicalUnit unit(int lun) {
    return lun >= 0 && lun < byLun.length ? byLun[lun] : null;
  }

  public List<LogicalUnit> units() {
    return units;
  }

  /**
   * Decodes and validates the CDB, checks unit attentions and reservations. true: proceed
   * ({@link ScsiTask#dataOutLength()} says what to collect, then call {@link #execute}). false: the
   * task is already complete (status and sense set, listener not called): send status now.
   */
  public boolean prepare(ScsiTask task) {
    LogicalUnit lu = unit(task.lun);
    task.unit = lu;
    if (lu != null) {
      lu.unitAttentions.touch(task.nexus);
      int op = task.cdb[0] & 0xFF;
      // INQUIRY, REPORT LUNS and REQUEST SENSE are not blocked by a unit attention (SAM-5 5.14)
      if (op != 0x12 && op != 0xA0 && op != 0x03) {
        SenseReason ua = lu.unitAttentions.poll(task.nexus);
        if (ua != null) {
          task.fail(ua);
          return false;
        }
      }
    }
    SenseReason r = CdbDecoder.decode(task, lu);
    if (r == null && task.dataOutLength != task.expectedDataTransferLength
        && (task.kind == CommandKind.COMPARE_AND_WRITE
            || (task.kind == CommandKind.WRITE_SAME && task.dataOutLength > 0))) {
      // Unlike a plain WRITE these have no meaningful partial form: the Data-Out must be exactly what the CDB says.
      r = SenseReason.INVALID_FIELD_IN_CDB;
    }
    if (r == null && lu != null) {
      r = lu.reservations.check(task);
    }
    if (r != null) {
      task.kind = null;
      task.dataOutLength = 0;
      task.fail(r);
      return false;
    }
    return true;
  }

  /** Runs a prepared task; completes through the listener, possibly on another thread. */
  public void execute(ScsiTask task) {
    CommandKind kind = task.kind;
    if (kind == null) {
      throw new IllegalStateException("execute() without a successful prepare()");
    }
    switch (kind) {
      case READ:
        SbcCommands.read(task);
        return;
      case WRITE:
      case WRITE_AND_VERIFY:
        SbcCommands.write(task);
        return;
      case VERIFY:
        SbcCommands.verify(task);
        return;
      case SYNCHRONIZE_CACHE:
        SbcCommands.synchronizeCache(task);
        return;
      case UNMAP:
        SbcCommands.unmap(task);
        return;
      case WRITE_SAME:
        SbcCommands.writeSame(task);
        return;
      case COMPARE_AND_WRITE:
        SbcCommands.compareAndWrite(task);
        return;
      default:
        SpcCommands.execute(task, this);
    }
  }

  /** LOGICAL UNIT RESET effects on LU state; aborting tasks is the transport's job. */
  public void logicalUnitReset(int lun, ItNexus requester) {
    LogicalUnit lu = unit(lun);
    if (lu != null) {
      lu.reset(requester);
    }
  }

  /** TARGET WARM RESET: a logical unit reset of every LU. */
  public void targetReset(ItNexus requester) {
    for (LogicalUnit lu : units) {
      lu.reset(requester);
    }
  }

  /** I_T nexus loss (session gone): SPC-2 reservation released, its unit attentions dropped. */
  public void nexusLost(ItNexus nexus) {
    for (LogicalUnit lu : units) {
      lu.nexusLost(nexus);
    }
  }

  SenseReason reportLuns(ScsiTask t, ByteBuf out) {
    int select = t.cdb[2] & 0xFF;
    int count = select == 1 ? 0 : units.size(); // select 1: well-known LUs only, and there are none
    out.writeInt(count * 8);
    out.writeInt(0);
    for (int i = 0; i < count; i++) {
      int lun = units.get(i).lun;
      if (lun < 256) {
        out.writeByte(0);           // peripheral device addressing
        out.writeByte(lun);
      } else {
        out.writeByte(0x40 | lun >>> 8); // flat space addressing
        out.writeByte(lun & 0xFF);
      }
      out.writeZero(6);
    }
    return null;
  }
}
