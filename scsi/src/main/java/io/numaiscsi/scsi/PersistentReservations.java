package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SPC-4 persistent reservations of one logical unit (5.13, 6.15, 6.16). Registrations are kept per
 * I_T nexus; SPEC_I_PT and ALL_TG_PT are not supported (REPORT CAPABILITIES says so). APTPL is when the unit has a
 * {@link ReservationStore} that persists: while it is active every change is handed to the store
 * ({@link #saveDue}, {@link #snapshot}). On the unit's thread only.
 */
final class PersistentReservations {
  static final int REGISTER = 0;
  static final int RESERVE = 1;
  static final int RELEASE = 2;
  static final int CLEAR = 3;
  static final int PREEMPT = 4;
  static final int PREEMPT_AND_ABORT = 5;
  static final int REGISTER_AND_IGNORE_EXISTING_KEY = 6;
  static final int REGISTER_AND_MOVE = 7;

  static final int READ_KEYS = 0;
  static final int READ_RESERVATION = 1;
  static final int REPORT_CAPABILITIES = 2;
  static final int READ_FULL_STATUS = 3;

  static final int WRITE_EXCLUSIVE = 1;
  static final int EXCLUSIVE_ACCESS = 3;
  static final int WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 5;
  static final int EXCLUSIVE_ACCESS_REGISTRANTS_ONLY = 6;
  static final int WRITE_EXCLUSIVE_ALL_REGISTRANTS = 7;
  static final int EXCLUSIVE_ACCESS_ALL_REGISTRANTS = 8;

  static final int PARAMETER_LIST_LENGTH = 24;
  private static final int APTPL = 0x01;
  private static final int ALL_TG_PT = 0x04;
  private static final int SPEC_I_PT = 0x08;
  private static final int UNREG = 0x02;

  private final UnitAttentions unitAttentions;
  private final Reservations owner;
  private final LinkedHashMap<ItNexus, Long> keys = new LinkedHashMap<>();
  private ItNexus holder;
  private int type;
  private int generation;
  /** The last valid APTPL bit (REPORT CAPABILITIES' PTPL_A). */
  private boolean aptpl;
  /** The last OUT changed state the store must hear of (APTPL was or became active). */
  private boolean saveDue;
  private ReservationStore store = ReservationStore.NONE;
  /** The cluster object the state is shared through (several gateways), or null: this process's alone. */
  private SharedReservations shared;
  /** The target's ports on other gateways: with shared reservations REGISTER AND MOVE may name one. */
  private TargetPortGroups portGroups = TargetPortGroups.NONE;
  /** The version of {@link #shared} the fields above reflect; -1 forces a read. */
  private long sharedVersion = -1;
  /** The nexuses whose registrations the last OUT removed: PREEMPT AND ABORT aborts their tasks. */
  private final List<ItNexus> preempted = new ArrayList<>();
  /** The nexuses whose registrations other gateways removed since {@link #takeLostToPeers} was last called. */
  private final List<ItNexus> lostToPeers = new ArrayList<>();
  /** Whether the shared store tells this unit of changes (then {@link #lostToPeers} is collected and consumed). */
  private boolean peersNotify;

  PersistentReservations(UnitAttentions unitAttentions, Reservations owner) {
    this.unitAttentions = unitAttentions;
    this.owner = owner;
  }

  /** The nexuses the last {@link #out} preempted (empty for other service actions). */
  List<ItNexus> preempted() {
    return preempted;
  }

  int reservationType() {
    return type;
  }

  ReservationStore store() {
    return store;
  }

  /** Keeps the state in {@code store} from now on, starting from {@code saved} (null: nothing saved). */
  void restore(ReservationStore store, ReservationState saved) {
    this.store = store;
    keys.clear();
    if (saved != null) {
      for (ReservationState.Registration r : saved.registrations()) {
        keys.put(r.nexus(), r.key());
      }
      type = saved.type();
      holder = type == 0 ? null : saved.holder() != null ? saved.holder() : keys.keySet().iterator().next();
      generation = saved.generation();
      aptpl = saved.aptpl() && store.persists();
    }
    owner.updateActive();
  }

  /**
   * Shares the state through {@code object} from now on, starting from what it holds; an object that was never
   * written (a fresh tmpfs after a reboot) takes this unit's state instead when it has one (restored from its APTPL
   * file), so the reservations of the last gateway up do not vanish.
   */
  void share(SharedReservations object) throws IOException {
    shared = object;
    SharedReservations.Versioned v = object.read();
    if (v.version() == 0 && (hasRegistrations() || aptpl)) {
      sharedVersion = 0;
      if (publish(false)) { // lost: a peer wrote first, and its state is taken up
        try {
          takenUp.toCompletableFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
          throw new IOException(e.getCause().getMessage(), e.getCause());
        }
      }
      return;
    }
    applyShared(v);
  }

  void portGroups(TargetPortGroups groups) {
    portGroups = groups;
  }

  SharedReservations shared() {
    return shared;
  }

  /**
   * Takes up the shared object's state when another gateway changed it (a compare of two longs when nothing did).
   *
   * @throws IOException the object could not be read; the state is then read again at the next decision
   */
  void refresh() throws IOException {
    if (shared == null || shared.knownVersion() == sharedVersion) {
      return;
    }
    SharedReservations.Versioned v;
    try {
      v = shared.read();
    } catch (IOException e) {
      sharedVersion = -1;
      throw e;
    }
    takeUp(v);
  }

  /** A state another gateway made becomes this unit's, with the unit attentions it owes the initiators here. */
  private void takeUp(SharedReservations.Versioned v) {
    List<ItNexus> registeredBefore = new ArrayList<>(keys.keySet());
    int typeBefore = type;
    applyShared(v);
    announcePeerChange(registeredBefore, typeBefore);
    if (peersNotify) {
      for (ItNexus n : registeredBefore) {
        if (!keys.containsKey(n) && !lostToPeers.contains(n)) {
          lostToPeers.add(n);
        }
      }
    }
  }

  /** The shared store tells of other gateways' changes: collect who they unregistered ({@link #takeLostToPeers}). */
  void peersNotify() {
    peersNotify = true;
  }

  /** The nexuses other gateways unregistered since the last call (whose tasks a change notice waits for). */
  List<ItNexus> takeLostToPeers() {
    List<ItNexus> lost = List.copyOf(lostToPeers);
    lostToPeers.clear();
    return lost;
  }

  /** The next decision reads the shared state first (this gateway just became the one that writes the unit). */
  void forgetSharedVersion() {
    if (shared != null) {
      sharedVersion = -1;
    }
  }

  /**
   * The unit attentions SPC-4 gives the initiators a change made through another gateway touched, for those that use
   * this one (a nexus belongs to one gateway's port): a registration gone that this gateway did not remove was
   * preempted (RESERVATIONS PREEMPTED when all went, as CLEAR does; REGISTRATIONS PREEMPTED otherwise); a registrants-only
   * reservation gone while they stayed registered was released (RESERVATIONS RELEASED).
   */
  private void announcePeerChange(List<ItNexus> registeredBefore, int typeBefore) {
    for (ItNexus n : registeredBefore) {
      if (!keys.containsKey(n)) {
        unitAttentions.postIfKnown(n, keys.isEmpty()
            ? SenseReason.RESERVATIONS_PREEMPTED : SenseReason.REGISTRATIONS_PREEMPTED);
      } else if (typeBefore != 0 && type == 0 && registrantsHaveAccess(typeBefore)) {
        unitAttentions.postIfKnown(n, SenseReason.RESERVATIONS_RELEASED);
      }
    }
  }

  private void applyShared(SharedReservations.Versioned v) {
    ReservationState s = v.state();
    keys.clear();
    for (ReservationState.Registration r : s.registrations()) {
      keys.put(r.nexus(), r.key());
    }
    type = s.type();
    holder = type == 0 ? null : s.holder() != null ? s.holder() : keys.keySet().iterator().next();
    generation = s.generation();
    aptpl = s.aptpl();
    sharedVersion = v.version();
    owner.updateActive();
  }

  /**
   * Publishes the state the last {@link #out} made: true when it is now the shared object's (or there is none); false
   * when another gateway changed the object first, whose state is then this unit's and the OUT must be decided again.
   * After true, {@link #takenUp} says when the other gateways hold it too.
   */
  boolean publish(boolean abortsTasks) throws IOException {
    takenUp = SharedReservations.Replaced.DONE;
    if (shared == null) {
      return true;
    }
    SharedReservations.Replaced r;
    try {
      r = shared.replace(sharedVersion, snapshot(), abortsTasks);
    } catch (IOException e) {
      sharedVersion = -1; // what the object holds is unknown now: read it before the next decision
      throw e;
    }
    if (r.version() >= 0) {
      sharedVersion = r.version();
      takenUp = r.takenUp();
      return true;
    }
    takeUp(shared.read());
    return false;
  }

  /** Completes once the other gateways hold what the last {@link #publish} wrote (at once without any). */
  java.util.concurrent.CompletionStage<Void> takenUp() {
    return takenUp;
  }

  private java.util.concurrent.CompletionStage<Void> takenUp = SharedReservations.Replaced.DONE;

  /** Whether the last {@link #out} must reach the store before its GOOD status. */
  boolean saveDue() {
    return saveDue;
  }

  ReservationState snapshot() {
    List<ReservationState.Registration> registrations = new ArrayList<>(keys.size());
    for (Map.Entry<ItNexus, Long> e : keys.entrySet()) {
      registrations.add(new ReservationState.Registration(e.getKey(), e.getValue()));
    }
    return new ReservationState(aptpl, generation, registrations, type, holder);
  }

  boolean hasRegistrations() {
    return !keys.isEmpty();
  }

  static boolean validType(int t) {
    return t == WRITE_EXCLUSIVE || t == EXCLUSIVE_ACCESS || (t >= WRITE_EXCLUSIVE_REGISTRANTS_ONLY && t <= EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
  }

  static boolean allRegistrants(int t) {
    return t == WRITE_EXCLUSIVE_ALL_REGISTRANTS || t == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
  }

  private static boolean registrantsHaveAccess(int t) {
    return t >= WRITE_EXCLUSIVE_REGISTRANTS_ONLY;
  }

  private static boolean writeExclusive(int t) {
    return t == WRITE_EXCLUSIVE || t == WRITE_EXCLUSIVE_REGISTRANTS_ONLY || t == WRITE_EXCLUSIVE_ALL_REGISTRANTS;
  }

  private boolean isHolder(ItNexus nexus) {
    if (type == 0) {
      return false;
    }
    return allRegistrants(type) ? keys.containsKey(nexus) : holder.equals(nexus);
  }

  /** The SPC-4 table 63 verdict for a nexus that does not hold the reservation. */
  boolean conflicts(ItNexus nexus, CommandKind kind, ScsiTask task) {
    if (type == 0 || isHolder(nexus) || kind.access == CommandKind.Access.ALWAYS) {
      return false;
    }
    if (registrantsHaveAccess(type) && keys.containsKey(nexus)) {
      return false;
    }
    if (kind == CommandKind.PREVENT_ALLOW_MEDIUM_REMOVAL && (task.cdb[4] & 0x03) == 0) {
      return false;
    }
    return !(kind.access == CommandKind.Access.READ && writeExclusive(type));
  }

  /**
   * PERSISTENT RESERVE OUT; {@code p} is the whole parameter list: the 24-byte basic list, or for REGISTER AND MOVE
   * its 24-byte header and the TransportID.
   */
  SenseReason out(ItNexus nexus, int serviceAction, int scope, int requestedType, byte[] p) {
    preempted.clear();
    saveDue = false;
    boolean aptplBefore = aptpl;
    SenseReason r = serviceAction == REGISTER_AND_MOVE ? registerAndMove(nexus, p)
        : basicOut(nexus, serviceAction, scope, requestedType, p);
    owner.updateActive();
    saveDue = r == null && (aptplBefore || aptpl);
    return r;
  }

  private SenseReason basicOut(ItNexus nexus, int serviceAction, int scope, int requestedType, byte[] p) {
    if (p.length != PARAMETER_LIST_LENGTH) {
      // a longer list only makes sense with SPEC_I_PT, which is not supported
      return (p[20] & SPEC_I_PT) != 0
          ? SenseReason.INVALID_FIELD_IN_PARAMETER_LIST : SenseReason.PARAMETER_LIST_LENGTH_ERROR;
    }
    long key = Cdb.u64(p, 0);
    long serviceActionKey = Cdb.u64(p, 8);
    int flags = p[20];
    if ((flags & (SPEC_I_PT | ALL_TG_PT)) != 0) {
      return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST; // capabilities say no
    }
    boolean registering = serviceAction == REGISTER || serviceAction == REGISTER_AND_IGNORE_EXISTING_KEY;
    boolean requestsAptpl = (flags & APTPL) != 0;
    if (registering && requestsAptpl && !store.persists()) {
      return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST; // PTPL_C=0; other service actions ignore the bit
    }
    Long mine = keys.get(nexus);
    SenseReason r;
    switch (serviceAction) {
      case REGISTER:
        if (mine == null ? key != 0 : mine != key) {
          return SenseReason.RESERVATION_CONFLICT;
        }
        r = register(nexus, mine, serviceActionKey);
        break;
      case REGISTER_AND_IGNORE_EXISTING_KEY:
        r = register(nexus, mine, serviceActionKey);
        break;
      default:
        if (mine == null || mine != key) {
          return SenseReason.RESERVATION_CONFLICT;
        }
        switch (serviceAction) {
          case RESERVE: r = reserve(nexus, scope, requestedType); break;
          case RELEASE: r = release(nexus, scope, requestedType); break;
          case CLEAR: r = clear(nexus); break;
          case PREEMPT:
          case PREEMPT_AND_ABORT: r = preempt(nexus, scope, requestedType, serviceActionKey); break;
          default: r = SenseReason.INVALID_FIELD_IN_CDB;
        }
    }
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
    boolean peerPort = shared != null && portGroups.isPeerPort(port);
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
    if (type != 0 && allRegistrants(type)) {
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
    if (type == 0) {
      return;
    }
    if (allRegistrants(type)) {
      if (keys.isEmpty()) {
        releaseReservation();
      }
    } else if (holder.equals(nexus)) {
      if (registrantsHaveAccess(type)) {
        postToRegistrants(SenseReason.RESERVATIONS_RELEASED, nexus);
      }
      releaseReservation();
    }
  }

  private SenseReason reserve(ItNexus nexus, int scope, int requestedType) {
    if (scope != 0 || !validType(requestedType)) {
      return SenseReason.INVALID_FIELD_IN_CDB;
    }
    if (type == 0) {
      type = requestedType;
      holder = nexus;
      return null;
    }
    return isHolder(nexus) && type == requestedType ? null : SenseReason.RESERVATION_CONFLICT;
  }

  private SenseReason release(ItNexus nexus, int scope, int requestedType) {
    if (type == 0 || !isHolder(nexus)) {
      return null;
    }
    if (scope != 0 || requestedType != type) {
      return SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION;
    }
    if (registrantsHaveAccess(type)) {
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

  private SenseReason preempt(ItNexus nexus, int scope, int requestedType, long serviceActionKey) {
    if (type != 0 && (scope != 0 || !validType(requestedType))) {
      return SenseReason.INVALID_FIELD_IN_CDB;
    }
    if (type != 0 && allRegistrants(type) && serviceActionKey == 0) {
      removeRegistrations(nexus, 0, true);
      type = requestedType;
      holder = nexus;
      generation++;
      return null;
    }
    if (type != 0 && !allRegistrants(type) && keys.get(holder) == serviceActionKey) {
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
    if (type != 0 && !allRegistrants(type) && !keys.containsKey(holder)) {
      releaseReservation();
    }
    return removed;
  }

  private void releaseReservation() {
    type = 0;
    holder = null;
  }

  private void postToRegistrants(SenseReason reason, ItNexus except) {
    for (ItNexus n : keys.keySet()) {
      if (!n.equals(except)) {
        unitAttentions.post(n, reason);
      }
    }
  }

  /** PERSISTENT RESERVE IN: writes the full parameter data. */
  SenseReason in(int serviceAction, ByteBuf out) {
    switch (serviceAction) {
      case READ_KEYS:
        out.writeInt(generation);
        out.writeInt(keys.size() * 8);
        for (long k : keys.values()) {
          out.writeLong(k);
        }
        return null;
      case READ_RESERVATION:
        out.writeInt(generation);
        if (type == 0) {
          out.writeInt(0);
          return null;
        }
        out.writeInt(16);
        out.writeLong(allRegistrants(type) ? 0 : keys.get(holder));
        out.writeInt(0);
        out.writeByte(0);
        out.writeByte(type); // scope 0 (LU_SCOPE) in the high nibble
        out.writeShort(0);
        return null;
      case REPORT_CAPABILITIES:
        out.writeShort(8);
        out.writeByte(store.persists() ? 0x01 : 0x00); // PTPL_C; RLR_C, CRH, SIP_C, ATP_C zero
        out.writeByte(0x90 | (aptpl ? 0x01 : 0x00));    // TMV, ALLOW COMMANDS 001b, PTPL_A
        out.writeByte(0x80 | 0x40 | 0x20 | 0x08 | 0x02);
        out.writeByte(0x01);
        out.writeShort(0);
        return null;
      case READ_FULL_STATUS:
        readFullStatus(out);
        return null;
      default:
        return SenseReason.INVALID_FIELD_IN_CDB;
    }
  }

  private void readFullStatus(ByteBuf out) {
    List<byte[]> ids = new ArrayList<>();
    int length = 0;
    for (ItNexus n : keys.keySet()) {
      byte[] id = TransportId.encode(n);
      ids.add(id);
      length += 24 + id.length;
    }
    out.writeInt(generation);
    out.writeInt(length);
    int i = 0;
    for (Map.Entry<ItNexus, Long> e : keys.entrySet()) {
      byte[] id = ids.get(i++);
      boolean holds = isHolder(e.getKey());
      out.writeLong(e.getValue());
      out.writeInt(0);
      out.writeByte(holds ? 0x01 : 0x00);
      out.writeByte(holds ? type : 0);
      out.writeInt(0);
      out.writeShort(e.getKey().relativeTargetPortId());
      out.writeInt(id.length);
      out.writeBytes(id);
    }
  }
}
