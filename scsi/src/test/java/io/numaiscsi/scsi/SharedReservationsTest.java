package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Two gateways' units of one LUN sharing their persistent reservations through one versioned object: a reservation
 * taken through one is enforced through the other, PREEMPT through the other takes it over, and of two RESERVEs
 * decided on the same version exactly one wins (the loser decides again on the winner's state).
 */
class SharedReservationsTest {
    private static final ItNexus VIA_A = new ItNexus("iqn.1994-05.com.redhat:alpha", 1, Harness.TARGET, 1);
    private static final ItNexus VIA_B = new ItNexus("iqn.1994-05.com.redhat:beta", 2, Harness.TARGET, 2);
    private static final int WRITE_EXCLUSIVE = 1;

    /** An object in memory; {@link #lag} makes {@link #knownVersion} stale, as a change notice still in flight would. */
    static final class MemoryObject implements SharedReservations {
        private long version;
        private ReservationState state = ReservationState.EMPTY;
        boolean lag;
        private long lagged;
        int replaces;
        int lost;

        @Override
        public synchronized Versioned read() {
            return new Versioned(version, state);
        }

        /** The gateways told of changes: each acknowledges through the counter. */
        final List<View> views = new CopyOnWriteArrayList<>();

        final AtomicInteger acknowledged = new AtomicInteger();
        int notices;

        /** One gateway's handle on the object: it is told of the changes the others make, not of its own. */
        View view() {
            View v = new View();
            views.add(v);
            return v;
        }

        final class View implements SharedReservations {
            private PeerChanges listener;

            @Override
            public Versioned read() {
                return MemoryObject.this.read();
            }

            @Override
            public Replaced replace(long expectedVersion, ReservationState next, boolean abortsTasks) {
                long v = MemoryObject.this.write(expectedVersion, next);
                if (v >= 0 && !lag) { // a lagging notice has not arrived
                    for (View other : views) {
                        if (other != this && other.listener != null) {
                            notices++;
                            other.listener.changed(abortsTasks, acknowledged::incrementAndGet);
                        }
                    }
                }
                return Replaced.at(v);
            }

            @Override
            public long knownVersion() {
                return MemoryObject.this.knownVersion();
            }

            @Override
            public void peerChanges(PeerChanges changes) {
                listener = changes;
            }
        }

        @Override
        public Replaced replace(long expectedVersion, ReservationState next, boolean abortsTasks) {
            return Replaced.at(write(expectedVersion, next));
        }

        long write(long expectedVersion, ReservationState next) {
            synchronized (this) {
                replaces++;
                if (expectedVersion != version) {
                    lost++;
                    return -1;
                }
                state = next;
                return ++version;
            }
        }

        @Override
        public synchronized long knownVersion() {
            return lag ? lagged : (lagged = version);
        }
    }

    private static Harness gateway(MemoryObject shared) throws IOException {
        LogicalUnit lu =
                new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(8 << 20, 512));
        lu.sharedReservations(shared.view());
        return new Harness(lu);
    }

    private static byte[] prout(int serviceAction, int type) {
        return cdb(String.format("5f %02x %02x 00 00 00 00 00 18 00", serviceAction, type));
    }

    private static byte[] list(long key, long serviceActionKey) {
        byte[] p = new byte[24];
        Cdb.putLong(p, 0, key);
        Cdb.putLong(p, 8, serviceActionKey);
        return p;
    }

    @Test
    void aReservationTakenThroughOneGatewayHoldsThroughTheOther() throws IOException {
        MemoryObject shared = new MemoryObject();
        Harness a = gateway(shared);
        Harness b = gateway(shared);
        a.good(VIA_A, 0, prout(0, 0), list(0, 0xA1));
        b.good(VIA_B, 0, prout(0, 0), list(0, 0xB2));
        a.good(VIA_A, 0, prout(1, WRITE_EXCLUSIVE), list(0xA1, 0));
        b.check(VIA_B, 0, Harness.write10(0, 1), new byte[512], SenseReason.RESERVATION_CONFLICT);
        b.good(VIA_B, 0, Harness.read10(0, 1), null); // WRITE EXCLUSIVE lets others read
        byte[] keys = b.good(VIA_B, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        assertEquals(16, Cdb.u32(keys, 4), "READ KEYS through B lists both registrations");

        b.good(VIA_B, 0, prout(4, WRITE_EXCLUSIVE), list(0xB2, 0xA1)); // PREEMPT A's key
        a.check(VIA_A, 0, Harness.write10(0, 1), new byte[512], SenseReason.REGISTRATIONS_PREEMPTED);
        a.check(VIA_A, 0, Harness.write10(0, 1), new byte[512], SenseReason.RESERVATION_CONFLICT);
        b.good(VIA_B, 0, Harness.write10(0, 1), new byte[512]);
        byte[] reservation = a.good(VIA_A, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(0xB2, Cdb.u64(reservation, 8), "READ RESERVATION through A: B's key holds it");
    }

    private static Harness aluaGateway(MemoryObject shared, int port, int peer) throws IOException {
        LogicalUnit lu =
                new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(8 << 20, 512));
        lu.sharedReservations(shared.view());
        return new Harness(
                TargetPortGroups.of(
                        port,
                        new TargetPortGroups.Group(port, TargetPortGroups.AccessState.ACTIVE_OPTIMIZED, List.of(port)),
                        List.of(new TargetPortGroups.Group(
                                peer, TargetPortGroups.AccessState.ACTIVE_NON_OPTIMIZED, List.of(peer)))),
                lu);
    }

    @Test
    void registerAndMoveHandsTheReservationToAnInitiatorOfTheOtherGateway() throws IOException {
        MemoryObject shared = new MemoryObject();
        Harness a = aluaGateway(shared, 1, 2);
        Harness b = aluaGateway(shared, 2, 1);
        a.good(VIA_A, 0, prout(0, 0), list(0, 0xA1));
        a.good(VIA_A, 0, prout(1, WRITE_EXCLUSIVE), list(0xA1, 0));
        byte[] id = TransportId.encode(VIA_B);
        byte[] move = new byte[24 + id.length];
        Cdb.putLong(move, 0, 0xA1);
        Cdb.putLong(move, 8, 0xB2);
        move[19] = 2; // relative target port 2: gateway B's
        Cdb.putInt(move, 20, id.length);
        System.arraycopy(id, 0, move, 24, id.length);
        a.good(VIA_A, 0, cdb(String.format("5f 07 00 00 00 %08x 00", move.length)), move);
        b.good(VIA_B, 0, Harness.write10(0, 1), new byte[512]);
        a.check(VIA_A, 0, Harness.write10(0, 1), new byte[512], SenseReason.RESERVATION_CONFLICT);
        byte[] reservation = b.good(VIA_B, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(0xB2, Cdb.u64(reservation, 8), "B's initiator holds it with the service action key");
        move[19] = 3; // no port of this target
        a.check(
                VIA_A,
                0,
                cdb(String.format("5f 07 00 00 00 %08x 00", move.length)),
                move,
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
    }

    @Test
    void aClearThroughTheOtherGatewayIsAnnouncedHere() throws IOException {
        MemoryObject shared = new MemoryObject();
        Harness a = gateway(shared);
        Harness b = gateway(shared);
        a.good(VIA_A, 0, prout(0, 0), list(0, 0xA1));
        b.good(VIA_B, 0, prout(0, 0), list(0, 0xB2));
        b.good(VIA_B, 0, prout(3, 0), list(0xB2, 0)); // CLEAR
        a.check(VIA_A, 0, cdb("00 00 00 00 00 00"), null, SenseReason.RESERVATIONS_PREEMPTED);
        a.good(VIA_A, 0, cdb("00 00 00 00 00 00"), null);
    }

    @Test
    void ofTwoReservesDecidedOnOneVersionExactlyOneWins() throws IOException {
        MemoryObject shared = new MemoryObject();
        Harness a = gateway(shared);
        Harness b = gateway(shared);
        a.good(VIA_A, 0, prout(0, 0), list(0, 0xA1));
        b.good(VIA_B, 0, prout(0, 0), list(0, 0xB2));
        a.good(VIA_A, 0, cdb("00 00 00 00 00 00"), null); // A takes up B's registration
        shared.lag = true; // from here on neither gateway hears of the other's change before its own OUT
        a.good(VIA_A, 0, prout(1, WRITE_EXCLUSIVE), list(0xA1, 0));
        b.check(VIA_B, 0, prout(1, WRITE_EXCLUSIVE), list(0xB2, 0), SenseReason.RESERVATION_CONFLICT);
        assertEquals(1, shared.lost, "B's replace lost to A's and B decided again on A's state");
        assertEquals(VIA_A, shared.read().state().holder());
    }

    @Test
    void aNeverWrittenObjectTakesTheStateRestoredFromTheAptplFile() throws IOException {
        MemoryObject shared = new MemoryObject();
        LogicalUnit lu =
                new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(8 << 20, 512));
        ReservationState saved = new ReservationState(
                true, 4, List.of(new ReservationState.Registration(VIA_A, 0xA1)), WRITE_EXCLUSIVE, VIA_A);
        lu.reservationStore(new MemoryReservationStore(saved));
        lu.sharedReservations(shared.view());
        assertEquals(1, shared.read().version());
        assertEquals(saved, shared.read().state());
        Harness b = gateway(shared);
        b.check(VIA_B, 0, Harness.write10(0, 1), new byte[512], SenseReason.RESERVATION_CONFLICT);
    }

    @Test
    void aGatewayStartingLaterTakesUpTheState() throws IOException {
        MemoryObject shared = new MemoryObject();
        Harness a = gateway(shared);
        a.good(VIA_A, 0, prout(0, 0), list(0, 0xA1));
        a.good(VIA_A, 0, prout(1, WRITE_EXCLUSIVE), list(0xA1, 0));
        Harness b = gateway(shared);
        b.check(VIA_B, 0, Harness.write10(0, 1), new byte[512], SenseReason.RESERVATION_CONFLICT);
    }

    /**
     * A PREEMPT AND ABORT made through B is acknowledged by A only after A took the state up and the preempted nexus's
     * WRITE executing at A has left (aborted), so B's GOOD means the preempted initiator can no longer change the medium
     * through A.
     */
    @Test
    void aPeerAcknowledgesAPreemptAndAbortOnlyAfterThePreemptedTasksLeft() throws IOException {
        MemoryObject shared = new MemoryObject();
        TaskSetTest.HeldWrites disk = new TaskSetTest.HeldWrites();
        LogicalUnit luA = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), disk);
        luA.sharedReservations(shared.view());
        Harness a = new Harness(luA);
        List<ItNexus> askedTransport = new ArrayList<>();
        a.target.transportAborts((nexus, lun) -> askedTransport.add(nexus));
        Harness b = gateway(shared);
        a.good(VIA_A, 0, prout(0, 0), list(0, 0xA1));
        b.good(VIA_B, 0, prout(0, 0), list(0, 0xB2));
        a.good(VIA_A, 0, prout(1, 5), list(0xA1, 0)); // WRITE EXCLUSIVE - REGISTRANTS ONLY, held by A's initiator
        int acksBefore = shared.acknowledged.get();

        ScsiTask held = a.start(VIA_A, 0, Harness.write10(0, 1), new byte[512]); // executing at A, not done
        ScsiTask preempt = b.start(VIA_B, 0, prout(5, 5), list(0xB2, 0xA1)); // PREEMPT AND ABORT of A's initiator
        assertEquals(ScsiStatus.GOOD, preempt.status(), "B's OUT is decided (the store's notify is what waits)");
        assertEquals(
                acksBefore, shared.acknowledged.get(), "A does not acknowledge while the preempted WRITE executes");
        Assertions.assertTrue(held.aborted(), "A aborted the preempted nexus's WRITE");
        assertEquals(List.of(VIA_A), askedTransport, "and asked its transport for the rest");

        disk.releaseAll();
        assertEquals(acksBefore + 1, shared.acknowledged.get(), "acknowledged once the WRITE left");
        a.check(VIA_A, 0, Harness.write10(0, 1), new byte[512], SenseReason.REGISTRATIONS_PREEMPTED);
        a.check(VIA_A, 0, Harness.write10(0, 1), new byte[512], SenseReason.RESERVATION_CONFLICT);
    }
}
