package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The logical units of one iSCSI target: routes tasks to their LU, answers REPORT LUNS and commands
 * to missing LUNs, and passes task management effects to each LU's thread. The set of units can change while the
 * target serves ({@link #add}, {@link #remove}); readers on any thread see one consistent snapshot.
 */
public final class ScsiTarget {
    private final String targetName;
    /** Snapshot of the units by LUN, replaced whole on every change; written only under {@code this}. */
    private volatile LogicalUnit[] byLun;

    private volatile List<LogicalUnit> units;
    private volatile TransportTaskAborts transportAborts = TransportTaskAborts.NONE;
    /** Which units each initiator sees, at which numbers; replaced whole under {@code this}. */
    private volatile LunMasking masking = LunMasking.NONE;

    final ByteBufAllocator alloc;
    /** Replaced whole when the gateways change ({@link #replacePortGroups}); this gateway's own port never does. */
    private volatile TargetPortGroups portGroups;

    public ScsiTarget(String targetName, List<LogicalUnit> units, ByteBufAllocator alloc) {
        this(targetName, units, alloc, TargetPortGroups.NONE);
    }

    /** A target whose port is one of several in {@code portGroups} (ALUA across gateways). */
    public ScsiTarget(String targetName, List<LogicalUnit> units, ByteBufAllocator alloc, TargetPortGroups portGroups) {
        this.targetName = Objects.requireNonNull(targetName, "targetName");
        this.alloc = Objects.requireNonNull(alloc, "alloc");
        this.portGroups = Objects.requireNonNull(portGroups, "portGroups");
        this.byLun = new LogicalUnit[0];
        this.units = List.of();
        for (LogicalUnit lu : units) {
            if (unit(lu.lun) != null) {
                throw new IllegalArgumentException("target " + targetName + ": LUN " + lu.lun + " configured twice");
            }
            install(lu);
        }
    }

    public String targetName() {
        return targetName;
    }

    public TargetPortGroups portGroups() {
        return portGroups;
    }

    /**
     * The other gateways' groups changed (a gateway group gained or lost a member): every unit reports the new groups
     * from now and tells each nexus ASYMMETRIC ACCESS STATE CHANGED, so multipath reads them again. This gateway's port
     * and group stay.
     */
    public synchronized void replacePortGroups(TargetPortGroups groups) {
        if (!groups.configured()
                || !portGroups.configured()
                || groups.localPort() != portGroups.localPort()
                || groups.local().id() != portGroups.local().id()) {
            throw new IllegalArgumentException(
                    "target " + targetName + ": only the other gateways' port groups change" + " while it serves");
        }
        portGroups = groups;
        for (LogicalUnit lu : units) {
            lu.portGroupsChanged(groups);
        }
    }

    /**
     * The iSCSI target portal group tag of this gateway's port: its relative target port identifier with ALUA, so
     * each gateway's I_T nexuses and target port names differ; {@code fallback} (the daemon's) without.
     */
    public int targetPortalGroupTag(int fallback) {
        return portGroups.configured() ? portGroups.localPort() : fallback;
    }

    public LogicalUnit unit(int lun) {
        LogicalUnit[] snapshot = byLun;
        return lun >= 0 && lun < snapshot.length ? snapshot[lun] : null;
    }

    /** The unit {@code nexus} names {@code lun} (LUN masking), or null when it sees none at that number. */
    public LogicalUnit unit(ItNexus nexus, int lun) {
        return unit(masking.unitLun(nexus, lun));
    }

    /** The LUN number {@code nexus} sees {@code lu} at, or -1 when it does not see it. */
    public int numberSeenBy(ItNexus nexus, LogicalUnit lu) {
        return masking.numberOf(nexus, lu.lun);
    }

    public LunMasking masking() {
        return masking;
    }

    /**
     * Replaces the LUN masking while the target serves: from now on each initiator's commands and REPORT LUNS follow its
     * new view, and the nexuses whose view changed get REPORTED LUNS DATA HAS CHANGED (SPC-4 7.5.1) on every unit they
     * now see; no other nexus does. The future completes once those unit attentions are queued.
     */
    public synchronized CompletableFuture<Void> masking(LunMasking next) {
        LunMasking old = masking;
        if (old.equals(next)) {
            return CompletableFuture.completedFuture(null);
        }
        masking = Objects.requireNonNull(next, "next");
        int maxUnit = byLun.length - 1;
        List<CompletableFuture<Void>> told = new ArrayList<>();
        for (LogicalUnit lu : units) {
            told.add(lu.announceViewChange(old, next, maxUnit, this::unit));
        }
        return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new));
    }

    /** The units in LUN order, as of now. */
    public List<LogicalUnit> units() {
        return units;
    }

    /** Who ends the tasks the transport still holds when PREEMPT AND ABORT aborts a nexus. */
    public void transportAborts(TransportTaskAborts aborts) {
        transportAborts = Objects.requireNonNull(aborts, "aborts");
    }

    TransportTaskAborts transportAborts() {
        return transportAborts;
    }

    /**
     * Adds a unit while the target serves. Every nexus that has used one of the other units gets REPORTED LUNS DATA HAS
     * CHANGED (SPC-4 7.5.1).
     */
    public synchronized void add(LogicalUnit lu) {
        if (unit(lu.lun) != null) {
            throw new IllegalArgumentException("target " + targetName + " already has LUN " + lu.lun);
        }
        List<LogicalUnit> others = units;
        install(lu);
        LunMasking m = masking;
        for (LogicalUnit other : others) {
            other.postTo(SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED, n -> m.numberOf(n, lu.lun) >= 0);
        }
    }

    /**
     * Removes a unit while the target serves: from now on its LUN answers LOGICAL UNIT NOT SUPPORTED and REPORT LUNS
     * leaves it out; the other units' nexuses get REPORTED LUNS DATA HAS CHANGED. Returns the unit (null when there is
     * none); {@link LogicalUnit#retire} says when its last task is done.
     */
    public synchronized LogicalUnit remove(int lun) {
        LogicalUnit lu = unit(lun);
        if (lu == null) {
            return null;
        }
        LogicalUnit[] next = byLun.clone();
        next[lun] = null;
        int length = next.length;
        while (length > 0 && next[length - 1] == null) {
            length--;
        }
        byLun = Arrays.copyOf(next, length);
        List<LogicalUnit> rest = new ArrayList<>(units);
        rest.remove(lu);
        units = List.copyOf(rest);
        LunMasking m = masking;
        for (LogicalUnit other : rest) {
            other.postTo(SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED, n -> m.numberOf(n, lu.lun) >= 0);
        }
        return lu;
    }

    private void install(LogicalUnit lu) {
        lu.attach(this, alloc, portGroups);
        LogicalUnit[] next = Arrays.copyOf(byLun, Math.max(byLun.length, lu.lun + 1));
        next[lu.lun] = lu;
        List<LogicalUnit> sorted = new ArrayList<>(units);
        sorted.add(lu);
        sorted.sort(Comparator.comparingInt(LogicalUnit::lun));
        byLun = next;
        units = List.copyOf(sorted);
    }

    /**
     * Decodes and validates the CDB on the transport's thread. true: proceed ({@link ScsiTask#dataOutLength()} says
     * what to collect, then call {@link #execute} on the unit's thread). false: the task is already complete (status
     * and sense set, listener not called): send status now. Unit attentions and reservations are checked by
     * {@link #execute}, on the unit's thread, where they live.
     */
    public boolean prepare(ScsiTask task) {
        LogicalUnit lu = unit(task.nexus, task.lun);
        task.unit = lu;
        SenseReason r = CdbDecoder.decode(task, lu);
        if (r == null && lu != null && lu.readOnly() && task.kind.writesMedium()) {
            // Refused before any Data-Out is asked for, so a malformed write (WRITE SAME with UNMAP and no Data-Out, as
            // libiscsi's ReadOnly test sends) also gets DATA PROTECT; a pending unit attention waits for the next
            // command.
            r = SenseReason.WRITE_PROTECTED;
        }
        if (r == null
                && task.dataOutLength != task.expectedDataTransferLength
                && (task.kind == CommandKind.COMPARE_AND_WRITE
                        || task.kind == CommandKind.WRITE_ATOMIC
                        || (task.kind == CommandKind.WRITE_SAME && task.dataOutLength > 0))) {
            // Unlike a plain WRITE these have no meaningful partial form: the Data-Out must be exactly what the CDB
            // says (an atomic write is all or nothing).
            r = SenseReason.INVALID_FIELD_IN_CDB;
        }
        if (r != null) {
            task.kind = null;
            task.dataOutLength = 0;
            task.fail(r);
            return false;
        }
        return true;
    }

    /**
     * Runs a prepared task on its unit's thread (any thread for a LUN that does not exist): admission (an aborted
     * task, a unit attention, a reservation conflict end it here), then the command. Completes through the listener,
     * on the unit's thread.
     */
    public void execute(ScsiTask task) {
        CommandKind kind = task.kind;
        if (kind == null) {
            throw new IllegalStateException("execute() without a successful prepare()");
        }
        LogicalUnit lu = task.unit;
        if (lu != null) {
            if (!lu.thread().isCurrent()) {
                throw new IllegalStateException("LUN " + lu.lun + " executes on " + lu.thread() + ", not "
                        + Thread.currentThread().getName());
            }
            if (task.aborted()) {
                task.completeFailed(SenseReason.TASK_ABORTED);
                return;
            }
            SenseReason refused = lu.admit(task);
            if (refused == SenseReason.SANITIZE_IN_PROGRESS) {
                task.completeFailedWithProgress(refused, lu.sanitize.progress());
                return;
            }
            if (refused != null) {
                task.completeFailed(refused);
                return;
            }
            lu.tasks.enter(task);
            if (!lu.modePages.writeCacheEnabled() && kind.writesMedium()) {
                task.fua = true; // WCE=0: nothing is acknowledged before it is durable
            }
        }
        switch (kind) {
            case READ -> {
                SbcCommands.read(task);
                return;
            }
            case WRITE, WRITE_AND_VERIFY, UNMAP, WRITE_SAME -> {
                SbcCommands.startPlainWrite(task);
                return;
            }
            case VERIFY -> {
                SbcCommands.verify(task);
                return;
            }
            case SYNCHRONIZE_CACHE -> {
                SbcCommands.synchronizeCache(task);
                return;
            }
            case PRE_FETCH -> {
                Prefetch.start(task);
                return;
            }
            case COMPARE_AND_WRITE -> {
                SbcCommands.compareAndWrite(task);
                return;
            }
            case ORWRITE -> {
                SbcCommands.orWrite(task);
                return;
            }
            case WRITE_ATOMIC -> {
                SbcCommands.writeAtomic(task);
                return;
            }
            case EXTENDED_COPY -> {
                ExtendedCopy.start(task, this);
                return;
            }
            case SANITIZE -> {
                lu.sanitize.start(task);
                return;
            }
            default -> SpcCommands.execute(task, this);
        }
    }

    /** LOGICAL UNIT RESET effects on LU state, applied on its thread; aborting tasks is the transport's job. */
    public void logicalUnitReset(int lun, ItNexus requester) {
        LogicalUnit lu = unit(requester, lun);
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
        LogicalUnit[] snapshot = byLun;
        List<Integer> seen = new ArrayList<>();
        if (select != 1) { // select 1: well-known LUs only, and there are none
            for (int[] view : masking.numbersOf(t.nexus, snapshot.length - 1)) {
                if (view[1] < snapshot.length && snapshot[view[1]] != null) {
                    seen.add(view[0]);
                }
            }
        }
        out.writeInt(seen.size() * 8);
        out.writeInt(0);
        for (int lun : seen) {
            if (lun < 256) {
                out.writeByte(0); // peripheral device addressing
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
