package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The copy manager's memory of one unit's EXTENDED COPY commands, per I_T nexus and list identifier (SPC-4 6.18.3):
 * those running, and those finished whose LIST ID USAGE asked to hold the results, until RECEIVE COPY RESULTS (COPY
 * STATUS) has reported them or the nexus is gone. Bounded: at most {@link CopyManagerLimits#MAX_CONCURRENT_COPIES}
 * running, and {@link #MAX_HELD} held per nexus (its oldest goes first, so one initiator cannot push out another's).
 * On the unit's thread only.
 */
final class CopyResults {
    /** Held results per I_T nexus. */
    static final int MAX_HELD = 32;

    static final int IN_PROGRESS = 0x00;
    static final int COMPLETED_GOOD = 0x01;
    static final int COMPLETED_WITH_ERRORS = 0x02;

    /** One copy's progress; its {@link ExtendedCopy} updates it on the unit's thread. */
    static final class Progress {
        final ItNexus nexus;
        final int listId;
        /** Keep the results once finished; cleared when the nexus goes away meanwhile. */
        boolean hold;

        int status = IN_PROGRESS;
        int segmentsProcessed;
        long bytesCopied;

        Progress(ItNexus nexus, int listId, boolean hold) {
            this.nexus = nexus;
            this.listId = listId;
            this.hold = hold;
        }
    }

    /** Running copies then held results, oldest first; small, so searched linearly. */
    private final List<Progress> records = new ArrayList<>();

    private int running;

    /**
     * Why a copy of {@code nexus} cannot start now (another copy of this nexus runs with the same list identifier, or
     * too many run), or null.
     */
    SenseReason refusal(ItNexus nexus, CopyPlan plan) {
        if (running >= CopyManagerLimits.MAX_CONCURRENT_COPIES) {
            return SenseReason.INSUFFICIENT_RESOURCES;
        }
        if (plan.hasListId()) {
            Progress same = find(nexus, plan.listId());
            if (same != null && same.status == IN_PROGRESS) {
                return SenseReason.OPERATION_IN_PROGRESS;
            }
        }
        return null;
    }

    /** Registers a copy {@link #refusal} allowed. One without a list identifier is counted but never found. */
    Progress begin(ItNexus nexus, CopyPlan plan) {
        if (plan.hasListId()) {
            Progress same = find(nexus, plan.listId());
            if (same != null) {
                records.remove(same); // a finished copy's results give way to a new copy with its list identifier
            }
        }
        Progress r = new Progress(nexus, plan.hasListId() ? plan.listId() : -1, plan.holdsResults());
        records.add(r);
        running++;
        return r;
    }

    /** The copy of {@code r} has ended; its results stay only if it asked to hold them. */
    void end(Progress r, boolean good) {
        r.status = good ? COMPLETED_GOOD : COMPLETED_WITH_ERRORS;
        running--;
        if (!r.hold || r.listId < 0) {
            records.remove(r);
            return;
        }
        int held = 0;
        for (Progress other : records) {
            if (other.status != IN_PROGRESS && other.nexus.equals(r.nexus)) {
                held++;
            }
        }
        for (Iterator<Progress> it = records.iterator(); held > MAX_HELD && it.hasNext(); ) {
            Progress old = it.next();
            if (old.status != IN_PROGRESS && old.nexus.equals(r.nexus)) {
                it.remove();
                held--;
            }
        }
    }

    /** RECEIVE COPY RESULTS, COPY STATUS (LID1): INVALID FIELD IN CDB for a list identifier it knows nothing of. */
    SenseReason copyStatus(ItNexus nexus, int listId, ByteBuf out) {
        Progress r = find(nexus, listId);
        if (r == null) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        out.writeInt(8); // AVAILABLE DATA
        out.writeByte(r.status); // HDD 0: no held data
        out.writeShort(Math.min(r.segmentsProcessed, 0xFFFF));
        out.writeByte(0); // TRANSFER COUNT UNITS: bytes
        out.writeInt((int) Math.min(r.bytesCopied, 0xFFFF_FFFFL));
        if (r.status != IN_PROGRESS) {
            records.remove(r); // reported: the results are discarded
        }
        return null;
    }

    /** The nexus is gone: results held for it go; its running copies finish but keep nothing. */
    void nexusLost(ItNexus nexus) {
        for (Iterator<Progress> it = records.iterator(); it.hasNext(); ) {
            Progress r = it.next();
            if (r.nexus.equals(nexus)) {
                if (r.status == IN_PROGRESS) {
                    r.hold = false;
                } else {
                    it.remove();
                }
            }
        }
    }

    private Progress find(ItNexus nexus, int listId) {
        for (Progress r : records) {
            if (r.listId == listId && r.nexus.equals(nexus)) {
                return r;
            }
        }
        return null;
    }

    int running() {
        return running;
    }

    int held() {
        return records.size() - running;
    }
}
