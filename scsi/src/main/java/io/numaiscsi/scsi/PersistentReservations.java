package io.numaiscsi.scsi;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SPC-4 persistent reservation rules of one logical unit (5.13, 6.16): registrations per I_T nexus, the
 * reservation, PRgeneration, APTPL, and what PERSISTENT RESERVE OUT does to them and which commands they make conflict
 * (table 63). SPEC_I_PT and ALL_TG_PT are not supported (REPORT CAPABILITIES says so). APTPL is when the unit has a
 * {@link ReservationStore} that persists: while it is active every change is handed to the store ({@link #saveDue},
 * {@link #snapshot}). Sharing the state with other gateways is {@link SharedReservationSync}'s. On the unit's thread
 * only.
 */
final class PersistentReservations {
    static final int PARAMETER_LIST_LENGTH = 24;
    private static final int APTPL = 0x01;
    private static final int ALL_TG_PT = 0x04;
    private static final int SPEC_I_PT = 0x08;
    private static final int UNREG = 0x02;

    private final UnitAttentions unitAttentions;
    private final Reservations owner;
    private final LinkedHashMap<ItNexus, Long> keys = new LinkedHashMap<>();
    private ItNexus holder;
    /** The reservation's type; null when there is none. */
    private ReservationType type;

    private int generation;
    /** The last valid APTPL bit (REPORT CAPABILITIES' PTPL_A). */
    private boolean aptpl;
    /** The last OUT changed state the store must hear of (APTPL was or became active). */
    private boolean saveDue;

    private ReservationStore store = ReservationStore.NONE;
    /** The state is shared with other gateways: REGISTER AND MOVE may name one of their ports. */
    private boolean sharedWithPeers;
    /** The target's ports on other gateways. */
    private TargetPortGroups portGroups = TargetPortGroups.NONE;
    /** The nexuses whose registrations the last OUT removed: PREEMPT AND ABORT aborts their tasks. */
    private final List<ItNexus> preempted = new ArrayList<>();

    PersistentReservations(UnitAttentions unitAttentions, Reservations owner) {
        this.unitAttentions = unitAttentions;
        this.owner = owner;
    }

    /** The nexuses the last {@link #out} preempted (empty for other service actions). */
    List<ItNexus> preempted() {
        return preempted;
    }

    /** The reservation's type, or null. */
    ReservationType reservationType() {
        return type;
    }

    ReservationStore store() {
        return store;
    }

    void portGroups(TargetPortGroups groups) {
        portGroups = groups;
    }

    void sharedWithPeers() {
        sharedWithPeers = true;
    }

    /** Keeps the state in {@code store} from now on, starting from {@code saved} (null: nothing saved). */
    void restore(ReservationStore store, ReservationState saved) {
        this.store = store;
        if (saved != null) {
            load(saved);
            aptpl = saved.aptpl() && store.persists();
        } else {
            keys.clear();
            owner.updateActive();
        }
    }

    /** Makes {@code s} this unit's state (another gateway's, or one restored). */
    void load(ReservationState s) {
        keys.clear();
        for (ReservationState.Registration r : s.registrations()) {
            keys.put(r.nexus(), r.key());
        }
        type = ReservationType.of(s.type());
        holder = type == null
                ? null
                : s.holder() != null ? s.holder() : keys.keySet().iterator().next();
        generation = s.generation();
        aptpl = s.aptpl();
        owner.updateActive();
    }

    ReservationState snapshot() {
        List<ReservationState.Registration> registrations = new ArrayList<>(keys.size());
        for (Map.Entry<ItNexus, Long> e : keys.entrySet()) {
            registrations.add(new ReservationState.Registration(e.getKey(), e.getValue()));
        }
        return new ReservationState(aptpl, generation, registrations, type == null ? 0 : type.code, holder);
    }

    /**
     * After another gateway's state replaced {@code before}: the unit attentions SPC-4 gives the initiators the change
     * touched, for those that use this gateway (a nexus belongs to one gateway's port). A registration gone that this
     * gateway did not remove was preempted (RESERVATIONS PREEMPTED when all went, as CLEAR does; REGISTRATIONS PREEMPTED
     * otherwise); a registrants-only reservation gone while they stayed registered was released (RESERVATIONS
     * RELEASED). Returns the nexuses that lost their registration.
     */
    List<ItNexus> announceChangeFrom(ReservationState before) {
        List<ItNexus> lost = new ArrayList<>();
        ReservationType typeBefore = ReservationType.of(before.type());
        for (ReservationState.Registration r : before.registrations()) {
            ItNexus n = r.nexus();
            if (!keys.containsKey(n)) {
                lost.add(n);
                unitAttentions.postIfKnown(
                        n, keys.isEmpty() ? SenseReason.RESERVATIONS_PREEMPTED : SenseReason.REGISTRATIONS_PREEMPTED);
            } else if (typeBefore != null && type == null && typeBefore.registrantsHaveAccess()) {
                unitAttentions.postIfKnown(n, SenseReason.RESERVATIONS_RELEASED);
            }
        }
        return lost;
    }

    /** Whether the last {@link #out} must reach the store before its GOOD status. */
    boolean saveDue() {
        return saveDue;
    }

    boolean hasRegistrations() {
        return !keys.isEmpty();
    }

    boolean aptpl() {
        return aptpl;
    }

    int generation() {
        return generation;
    }

    /** Registrations in the order they were made (READ KEYS reports that order). */
    Map<ItNexus, Long> keys() {
        return keys;
    }

    /** The reservation key of the holder (0 for an all-registrants type, whose holders are every registrant). */
    long holderKey() {
        return type == null || type.allRegistrants() ? 0 : keys.get(holder);
    }

    boolean isHolder(ItNexus nexus) {
        if (type == null) {
            return false;
        }
        return type.allRegistrants() ? keys.containsKey(nexus) : holder.equals(nexus);
    }

    /** The SPC-4 table 63 verdict for a nexus that does not hold the reservation. */
    boolean conflicts(ItNexus nexus, CommandKind kind, ScsiTask task) {
        if (type == null || isHolder(nexus) || kind.access == CommandKind.Access.ALWAYS) {
            return false;
        }
        if (type.registrantsHaveAccess() && keys.containsKey(nexus)) {
            return false;
        }
        if (kind == CommandKind.PREVENT_ALLOW_MEDIUM_REMOVAL && (task.cdb[4] & 0x03) == 0) {
            return false;
        }
        return !(kind.access == CommandKind.Access.READ && type.writeExclusive());
    }

    /**
     * PERSISTENT RESERVE OUT; {@code p} is the whole parameter list: the 24-byte basic list, or for REGISTER AND MOVE
     * its 24-byte header and the TransportID. {@code requestedType}: the CDB's TYPE (null when SPC-4 defines none).
     */
    SenseReason out(
            ItNexus nexus, ProutServiceAction serviceAction, int scope, ReservationType requestedType, byte[] p) {
        preempted.clear();
        saveDue = false;
        boolean aptplBefore = aptpl;
        SenseReason r = serviceAction == ProutServiceAction.REGISTER_AND_MOVE
                ? registerAndMove(nexus, p)
                : basicOut(nexus, serviceAction, scope, requestedType, p);
        owner.updateActive();
        saveDue = r == null && (aptplBefore || aptpl);
        return r;
    }

    private SenseReason basicOut(
            ItNexus nexus, ProutServiceAction serviceAction, int scope, ReservationType requestedType, byte[] p) {
        if (p.length != PARAMETER_LIST_LENGTH) {
            // a longer list only makes sense with SPEC_I_PT, which is not supported
            return (p[20] & SPEC_I_PT) != 0
                    ? SenseReason.INVALID_FIELD_IN_PARAMETER_LIST
                    : SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        long key = Cdb.u64(p, 0);
        long serviceActionKey = Cdb.u64(p, 8);
        int flags = p[20];
        if ((flags & (SPEC_I_PT | ALL_TG_PT)) != 0) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST; // capabilities say no
        }
        boolean registering = serviceAction.registers();
        boolean requestsAptpl = (flags & APTPL) != 0;
        if (registering && requestsAptpl && !store.persists()) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST; // PTPL_C=0; other service actions ignore the bit
        }
        Long mine = keys.get(nexus);
        SenseReason r;
        if (serviceAction == ProutServiceAction.REGISTER && (mine == null ? key != 0 : mine != key)) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        if (!registering && (mine == null || mine != key)) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        r = switch (serviceAction) {
            case REGISTER, REGISTER_AND_IGNORE_EXISTING_KEY -> register(nexus, mine, serviceActionKey);
            case RESERVE -> reserve(nexus, scope, requestedType);
            case RELEASE -> release(nexus, scope, requestedType);
            case CLEAR -> clear(nexus);
            case PREEMPT, PREEMPT_AND_ABORT -> preempt(nexus, scope, requestedType, serviceActionKey);
            case REGISTER_AND_MOVE -> SenseReason.INVALID_FIELD_IN_CDB; // decided by registerAndMove
        };
        if (r == null && registering) {
            aptpl = requestsAptpl;
        }
        return r;
    }

    /**
     * REGISTER AND MOVE (SPC-4 5.13.8): the holder registers another I_T nexus (the TransportID's initiator port at the
     * RELATIVE TARGET PORT IDENTIFIER) with the service action key and hands it the reservation, same type and scope;
     * UNREG also unregisters the sender. The CDB's SCOPE and TYPE are ignored.
     */
    private SenseReason registerAndMove(ItNexus nexus, byte[] p) {
        Long mine = keys.get(nexus);
        if (mine == null || mine != Cdb.u64(p, 0)) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        long serviceActionKey = Cdb.u64(p, 8);
        if (serviceActionKey == 0) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        boolean requestsAptpl = (p[17] & APTPL) != 0;
        if (requestsAptpl && !store.persists()) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        long idLength = Cdb.u32(p, 20);
        if (PARAMETER_LIST_LENGTH + idLength != p.length) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        // this gateway's port, or, with reservations shared with the other gateways, one of theirs
        int port = Cdb.u16(p, 18);
        boolean peerPort = sharedWithPeers && portGroups.isPeerPort(port);
        if (port != nexus.relativeTargetPortId() && !peerPort) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        ItNexus destination = TransportId.decodePort(p, PARAMETER_LIST_LENGTH, (int) idLength, nexus);
        if (destination != null && peerPort) {
            // the relative target port identifier is the TPGT of that gateway's port
            destination = new ItNexus(destination.initiatorName(), destination.isid(), destination.targetName(), port);
        }
        if (destination == null || destination.equals(nexus)) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        if (type != null && type.allRegistrants()) {
            return SenseReason.INVALID_FIELD_IN_CDB; // every registrant holds it: there is no one holder to move
        }
        if (!isHolder(nexus)) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        keys.put(destination, serviceActionKey);
        holder = destination;
        if ((p[17] & UNREG) != 0) {
            keys.remove(nexus);
        }
        generation++;
        aptpl = requestsAptpl;
        return null;
    }

    private SenseReason register(ItNexus nexus, Long mine, long newKey) {
        if (mine == null) {
            if (newKey != 0) {
                keys.put(nexus, newKey);
                generation++;
            }
            return null;
        }
        if (newKey == 0) {
            unregister(nexus);
        } else {
            keys.put(nexus, newKey);
        }
        generation++;
        return null;
    }

    private void unregister(ItNexus nexus) {
        keys.remove(nexus);
        if (type == null) {
            return;
        }
        if (type.allRegistrants()) {
            if (keys.isEmpty()) {
                releaseReservation();
            }
        } else if (holder.equals(nexus)) {
            if (type.registrantsHaveAccess()) {
                postToRegistrants(SenseReason.RESERVATIONS_RELEASED, nexus);
            }
            releaseReservation();
        }
    }

    private SenseReason reserve(ItNexus nexus, int scope, ReservationType requestedType) {
        if (scope != 0 || requestedType == null) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        if (type == null) {
            type = requestedType;
            holder = nexus;
            return null;
        }
        return isHolder(nexus) && type == requestedType ? null : SenseReason.RESERVATION_CONFLICT;
    }

    private SenseReason release(ItNexus nexus, int scope, ReservationType requestedType) {
        if (type == null || !isHolder(nexus)) {
            return null;
        }
        if (scope != 0 || requestedType != type) {
            return SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION;
        }
        if (type.registrantsHaveAccess()) {
            postToRegistrants(SenseReason.RESERVATIONS_RELEASED, nexus);
        }
        releaseReservation();
        return null;
    }

    private SenseReason clear(ItNexus nexus) {
        postToRegistrants(SenseReason.RESERVATIONS_PREEMPTED, nexus);
        keys.clear();
        releaseReservation();
        generation++;
        return null;
    }

    private SenseReason preempt(ItNexus nexus, int scope, ReservationType requestedType, long serviceActionKey) {
        if (type != null && (scope != 0 || requestedType == null)) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        if (type != null && type.allRegistrants() && serviceActionKey == 0) {
            removeRegistrations(nexus, 0, true);
            type = requestedType;
            holder = nexus;
            generation++;
            return null;
        }
        if (type != null && !type.allRegistrants() && keys.get(holder) == serviceActionKey) {
            boolean changed = type != requestedType;
            removeRegistrations(nexus, serviceActionKey, false);
            type = requestedType;
            holder = nexus;
            if (changed) {
                postToRegistrants(SenseReason.RESERVATIONS_RELEASED, nexus);
            }
            generation++;
            return null;
        }
        if (serviceActionKey == 0) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        if (removeRegistrations(nexus, serviceActionKey, false) == 0) {
            return SenseReason.RESERVATION_CONFLICT;
        }
        generation++;
        return null;
    }

    /** Removes registrations with {@code key} (or all when {@code all}) except the requester's; they get a UA. */
    private int removeRegistrations(ItNexus requester, long key, boolean all) {
        int removed = 0;
        for (Iterator<Map.Entry<ItNexus, Long>> it = keys.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<ItNexus, Long> e = it.next();
            if (!e.getKey().equals(requester) && (all || e.getValue() == key)) {
                it.remove();
                preempted.add(e.getKey());
                unitAttentions.post(e.getKey(), SenseReason.REGISTRATIONS_PREEMPTED);
                removed++;
            }
        }
        if (type != null && !type.allRegistrants() && !keys.containsKey(holder)) {
            releaseReservation();
        }
        return removed;
    }

    private void releaseReservation() {
        type = null;
        holder = null;
    }

    private void postToRegistrants(SenseReason reason, ItNexus except) {
        for (ItNexus n : keys.keySet()) {
            if (!n.equals(except)) {
                unitAttentions.post(n, reason);
            }
        }
    }
}
