package io.numaiscsi.scsi;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reservation state of one logical unit: the SPC-2 RESERVE/RELEASE holder and the persistent
 * reservations, plus the conflict check every command passes (SPC-4 5.9.1, table 63). On the unit's thread only.
 */
final class Reservations {
    private static final Logger LOG = LoggerFactory.getLogger(Reservations.class);
    final PersistentReservations persistent;
    /** Keeps {@link #persistent} in step with the other gateways' (when shared). */
    final SharedReservationSync sync;

    private ItNexus spc2Holder;
    /** true while any reservation exists: the hot path reads only this. */
    private boolean active;

    Reservations(UnitAttentions unitAttentions) {
        this.persistent = new PersistentReservations(unitAttentions, this);
        this.sync = new SharedReservationSync(persistent);
    }

    /**
     * RESERVATION_CONFLICT, or null when the command may proceed. A shared state is first brought up to date; when it
     * cannot be read the command gets NOT READY (retryable) rather than a decision on a state that may be stale.
     */
    SenseReason check(ScsiTask task) {
        if (!refreshed()) {
            return SenseReason.LOGICAL_UNIT_NOT_READY;
        }
        if (!active) {
            return null;
        }
        ItNexus nexus = task.nexus;
        CommandKind kind = task.kind;
        if (spc2Holder != null && !spc2Holder.equals(nexus) && !kind.allowedUnderSpc2Reservation) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        return persistent.conflicts(nexus, kind, task) ? SenseReason.RESERVATION_CONFLICT : null;
    }

    /**
     * Whether a {@code kind} access of {@code nexus} conflicts with a reservation: for I/O the unit does on behalf of a
     * command sent elsewhere (EXTENDED COPY's reads and writes of its source and destination units).
     */
    boolean conflicts(ItNexus nexus, CommandKind kind) {
        if (!refreshed()) {
            return true; // fail closed: the copy's access is refused
        }
        if (!active) {
            return false;
        }
        if (spc2Holder != null && !spc2Holder.equals(nexus) && !kind.allowedUnderSpc2Reservation) {
            return true;
        }
        return persistent.conflicts(nexus, kind, null); // the task is looked at only for PREVENT ALLOW MEDIUM REMOVAL
    }

    /** Brings a shared state up to date (see {@link #check}); false when it cannot be read. */
    boolean refreshed() {
        try {
            sync.refresh();
            if (unreadable) {
                unreadable = false;
                LOG.info("shared persistent reservations read again; commands run again");
            }
            return true;
        } catch (IOException e) {
            if (!unreadable) {
                unreadable = true; // told once per outage, not once per command
                LOG.warn(
                        "shared persistent reservations could not be read ({}); commands get NOT READY until they can",
                        e.getMessage());
            }
            return false;
        }
    }

    /** The shared state could not be read at the last try (logged once until it can). */
    private boolean unreadable;

    /** RESERVE(6)/(10), SPC-2 semantics (no extents, no third party). */
    SenseReason reserve(ItNexus nexus) {
        if (persistent.hasRegistrations()) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        if (spc2Holder != null && !spc2Holder.equals(nexus)) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        spc2Holder = nexus;
        updateActive();
        return null;
    }

    /** RELEASE(6)/(10): releasing someone else's (or no) reservation is GOOD and changes nothing. */
    SenseReason release(ItNexus nexus) {
        if (persistent.hasRegistrations()) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        if (spc2Holder != null && spc2Holder.equals(nexus)) {
            spc2Holder = null;
            updateActive();
        }
        return null;
    }

    boolean spc2ReservedByOther(ItNexus nexus) {
        return spc2Holder != null && !spc2Holder.equals(nexus);
    }

    ItNexus spc2Holder() {
        return spc2Holder;
    }

    /** Logical unit reset and target reset clear SPC-2 reservations; persistent ones survive. */
    void reset() {
        spc2Holder = null;
        updateActive();
    }

    void nexusLost(ItNexus nexus) {
        if (spc2Holder != null && spc2Holder.equals(nexus)) {
            spc2Holder = null;
            updateActive();
        }
    }

    /** Called whenever either reservation changes. */
    void updateActive() {
        active = spc2Holder != null || persistent.reservationType() != null;
    }
}
