package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPC-2 RESERVE/RELEASE and SPC-4 persistent reservations, driven through the target. */
class ReservationsTest {
    private static final ItNexus C = new ItNexus("iqn.1994-05.com.redhat:gamma", 3, Harness.TARGET, 1);
    private final Harness h = new Harness();

    private static byte[] proutList(long key, long serviceActionKey) {
        byte[] p = new byte[24];
        Cdb.putLong(p, 0, key);
        Cdb.putLong(p, 8, serviceActionKey);
        return p;
    }

    private static byte[] prout(int serviceAction, int type) {
        return cdb(String.format("5f %02x %02x 00 00 00 00 00 18 00", serviceAction, type));
    }

    private void register(ItNexus n, long key) {
        h.good(n, 0, prout(0, 0), proutList(0, key));
    }

    private void reserve(ItNexus n, long key, int type) {
        h.good(n, 0, prout(1, type), proutList(key, 0));
    }

    private int status(ItNexus n, byte[] cdb, byte[] data) {
        ScsiTask t = h.run(n, 0, cdb, data);
        int s = t.status();
        t.recycle();
        return s;
    }

    @Test
    void spc2ReservationBlocksOtherNexus() {
        h.good(A, 0, cdb("16 00 00 00 00 00"), null);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, read10(0, 1), null));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, cdb("000000000000"), null));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, cdb("16 00 00 00 00 00"), null));
        h.good(B, 0, cdb("12 00 00 00 60 00"), null); // INQUIRY allowed
        h.good(B, 0, cdb("a0 00 00 000000 00000100 00 00"), null); // REPORT LUNS allowed
        h.good(B, 0, cdb("17 00 00 00 00 00"), null); // RELEASE by non-holder: GOOD, no effect
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, read10(0, 1), null));
        h.good(A, 0, read10(0, 1), null);
        h.good(A, 0, cdb("57 00 00 00 00 00 00 00 00 00"), null); // RELEASE(10) by holder
        h.good(B, 0, read10(0, 1), null);
    }

    @Test
    void spc2ReservationEndsWithNexusLossAndReset() {
        h.good(A, 0, cdb("56 00 00 00 00 00 00 00 00 00"), null);
        h.target.nexusLost(A);
        h.good(B, 0, read10(0, 1), null);
        h.good(B, 0, cdb("16 00 00 00 00 00"), null);
        h.target.logicalUnitReset(0, A);
        h.good(A, 0, read10(0, 1), null);
    }

    /**
     * On the unit's own thread a nexus loss or reset takes effect before the next command that thread runs: a queue
     * the thread has not drained yet must not let another initiator's RESERVE see a holder that logged out.
     */
    @Test
    void nexusLossAndResetOnTheUnitsThreadApplyBeforeItsNextCommand() {
        List<Runnable> neverDrained = new ArrayList<>();
        for (LogicalUnit lu : h.target.units()) {
            lu.thread(new LunThread() {
                @Override
                public boolean isCurrent() {
                    return true;
                }

                @Override
                public void execute(Runnable r) {
                    neverDrained.add(r);
                }
            });
        }
        h.good(A, 0, cdb("16 00 00 00 00 00"), null);
        h.target.nexusLost(A);
        h.good(B, 0, cdb("16 00 00 00 00 00"), null);
        h.target.logicalUnitReset(0, A);
        h.good(A, 0, cdb("16 00 00 00 00 00"), null);
        assertEquals(List.of(), neverDrained);
    }

    @Test
    void reserveConflictsWithPersistentRegistrations() {
        register(A, 0xAA);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, cdb("16 00 00 00 00 00"), null));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(A, cdb("16 00 00 00 00 00"), null));
    }

    /**
     * SPC-4 table 63 for a nexus other than the holder: registered or not, reading or writing.
     * Columns: type, B registered, READ allowed, WRITE allowed.
     */
    @ParameterizedTest(name = "type {0}, registered {1}")
    @CsvSource({
        "1, false, true,  false",
        "1, true,  true,  false",
        "3, false, false, false",
        "3, true,  false, false",
        "5, false, true,  false",
        "5, true,  true,  true",
        "6, false, false, false",
        "6, true,  true,  true",
        "7, false, true,  false",
        "7, true,  true,  true",
        "8, false, false, false",
        "8, true,  true,  true",
    })
    void persistentReservationConflictTable(int type, boolean registered, boolean readOk, boolean writeOk) {
        register(A, 0xA);
        if (registered) {
            register(B, 0xB);
        }
        reserve(A, 0xA, type);
        assertEquals(readOk ? ScsiStatus.GOOD : ScsiStatus.RESERVATION_CONFLICT, status(B, read10(0, 1), null));
        assertEquals(
                writeOk ? ScsiStatus.GOOD : ScsiStatus.RESERVATION_CONFLICT, status(B, write10(0, 1), new byte[512]));
        // always allowed
        assertEquals(ScsiStatus.GOOD, status(B, cdb("000000000000"), null));
        assertEquals(ScsiStatus.GOOD, status(B, cdb("12 00 00 00 60 00"), null));
        assertEquals(ScsiStatus.GOOD, status(B, cdb("25 00 00000000 00 00 00 00"), null));
        assertEquals(ScsiStatus.GOOD, status(B, cdb("5e 00 00 00 00 00 00 01 00 00"), null));
        // the holder itself is never in conflict
        assertEquals(ScsiStatus.GOOD, status(A, write10(0, 1), new byte[512]));
    }

    @Test
    void readKeysAndReadReservation() {
        register(A, 0x1111);
        register(B, 0x2222);
        byte[] keys = h.good(C, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        assertEquals(2, Cdb.u32(keys, 0), "generation counts registrations");
        assertEquals(16, Cdb.u32(keys, 4));
        assertEquals(0x1111, Cdb.u64(keys, 8));
        assertEquals(0x2222, Cdb.u64(keys, 16));
        byte[] none = h.good(C, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(0, Cdb.u32(none, 4));
        reserve(B, 0x2222, 3);
        byte[] res = h.good(C, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(16, Cdb.u32(res, 4));
        assertEquals(0x2222, Cdb.u64(res, 8));
        assertEquals(3, res[21]);
        assertEquals(2, Cdb.u32(res, 0), "RESERVE does not bump the generation");
    }

    @Test
    void reportCapabilitiesAndFullStatus() {
        byte[] caps = h.good("5e 02 00 00 00 00 00 01 00 00");
        assertEquals(8, Cdb.u16(caps, 0));
        assertEquals(0x80, caps[3] & 0x80, "TMV");
        assertEquals(0xEA, caps[4] & 0xFF, "WR_EX_AR, EX_AC_RO, WR_EX_RO, EX_AC, WR_EX");
        assertEquals(0x01, caps[5], "EX_AC_AR");
        register(A, 0x77);
        reserve(A, 0x77, 1);
        byte[] full = h.good("5e 03 00 00 00 00 00 01 00 00");
        assertEquals(0x77, Cdb.u64(full, 8));
        assertEquals(1, full[8 + 12] & 1, "R_HOLDER");
        assertEquals(1, full[8 + 13], "type");
        int idLength = (int) Cdb.u32(full, 8 + 20);
        assertEquals(0x45, full[8 + 24], "iSCSI TransportID, format 01b");
        String name = new String(full, 8 + 28, idLength - 4, StandardCharsets.UTF_8).replace("\0", "");
        assertEquals(A.initiatorPortName(), name);
        h.check("5e 04 00 00 00 00 00 01 00 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void registrationRules() {
        // unregistered nexus with a non-zero key: conflict
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(A, prout(0, 0), proutList(5, 6)));
        register(A, 6);
        // wrong key: conflict; right key changes it; REGISTER AND IGNORE needs no key
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(A, prout(0, 0), proutList(5, 7)));
        h.good(A, 0, prout(0, 0), proutList(6, 7));
        h.good(A, 0, prout(6, 0), proutList(0, 8));
        // unregistered nexus may not reserve
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, prout(1, 1), proutList(0, 0)));
        // bad type / scope
        h.check(A, 0, prout(1, 2), proutList(8, 0), SenseReason.INVALID_FIELD_IN_CDB);
        h.check(A, 0, prout(1, 0x11), proutList(8, 0), SenseReason.INVALID_FIELD_IN_CDB);
        // APTPL unsupported
        byte[] aptpl = proutList(8, 9);
        aptpl[20] = 1;
        h.check(A, 0, prout(0, 0), aptpl, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
    }

    @Test
    void releaseRules() {
        register(A, 1);
        register(B, 2);
        reserve(A, 1, 5);
        h.good(B, 0, prout(2, 5), proutList(2, 0)); // non-holder release: GOOD, nothing happens
        h.check(A, 0, prout(2, 1), proutList(1, 0), SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION);
        h.good(A, 0, prout(2, 5), proutList(1, 0));
        h.check(B, 0, cdb("000000000000"), null, SenseReason.RESERVATIONS_RELEASED);
        assertEquals(ScsiStatus.GOOD, status(C, write10(0, 1), new byte[512]));
    }

    @Test
    void unregisteringTheHolderReleases() {
        register(A, 1);
        reserve(A, 1, 3);
        h.good(A, 0, prout(0, 0), proutList(1, 0));
        assertEquals(ScsiStatus.GOOD, status(B, read10(0, 1), null));
    }

    @Test
    void preemptTakesOverAndNotifies() {
        register(A, 1);
        register(B, 2);
        reserve(A, 1, 3);
        h.good(B, 0, prout(4, 1), proutList(2, 1));
        h.check(A, 0, cdb("000000000000"), null, SenseReason.REGISTRATIONS_PREEMPTED);
        // A is no longer registered, B holds a Write Exclusive reservation
        assertEquals(ScsiStatus.GOOD, status(A, read10(0, 1), null));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(A, write10(0, 1), new byte[512]));
        byte[] res = h.good(C, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(2, Cdb.u64(res, 8));
        assertEquals(1, res[21]);
        // preempting a key nobody has: conflict; key 0 without an all-registrants reservation: invalid
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, prout(4, 1), proutList(2, 99)));
        h.check(B, 0, prout(5, 1), proutList(2, 0), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
    }

    @Test
    void preemptWithoutReservationRemovesRegistrations() {
        register(A, 1);
        register(B, 2);
        h.good(A, 0, prout(4, 0), proutList(1, 2));
        byte[] keys = h.good(C, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        assertEquals(8, Cdb.u32(keys, 4));
    }

    @Test
    void clearRemovesEverythingAndNotifies() {
        register(A, 1);
        register(B, 2);
        reserve(A, 1, 8);
        h.good(B, 0, prout(3, 0), proutList(2, 0));
        h.check(A, 0, cdb("000000000000"), null, SenseReason.RESERVATIONS_PREEMPTED);
        byte[] keys = h.good(C, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        assertEquals(0, Cdb.u32(keys, 4));
        assertEquals(ScsiStatus.GOOD, status(C, write10(0, 1), new byte[512]));
    }

    @Test
    void allRegistrantsReservationSurvivesUntilLastRegistrantLeaves() {
        register(A, 1);
        register(B, 2);
        reserve(A, 1, 7);
        h.good(A, 0, prout(0, 0), proutList(1, 0)); // A unregisters; B still holds
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(C, write10(0, 1), new byte[512]));
        h.good(B, 0, prout(0, 0), proutList(2, 0));
        assertEquals(ScsiStatus.GOOD, status(C, write10(0, 1), new byte[512]));
    }

    @Test
    void persistentReservationsSurviveNexusLoss() {
        register(A, 1);
        reserve(A, 1, 3);
        h.target.nexusLost(A);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(B, read10(0, 1), null));
        h.good(A, 0, read10(0, 1), null);
    }

    @Test
    void wrongParameterListLength() {
        h.check(A, 0, cdb("5f 00 00 00 00 00 00 00 20 00"), new byte[32], SenseReason.PARAMETER_LIST_LENGTH_ERROR);
    }

    // ---- REGISTER AND MOVE (SPC-4 5.13.8) ----

    private static byte[] moveCdb(int length) {
        return cdb(String.format("5f 07 00 00 00 %08x 00", length));
    }

    /** The REGISTER AND MOVE parameter list: header and {@code transportId}. */
    private static byte[] moveList(long key, long serviceActionKey, int flags, int relativePort, byte[] transportId) {
        byte[] p = new byte[24 + transportId.length];
        Cdb.putLong(p, 0, key);
        Cdb.putLong(p, 8, serviceActionKey);
        p[17] = (byte) flags;
        p[18] = (byte) (relativePort >>> 8);
        p[19] = (byte) relativePort;
        Cdb.putInt(p, 20, transportId.length);
        System.arraycopy(transportId, 0, p, 24, transportId.length);
        return p;
    }

    private void move(ItNexus from, long key, long newKey, int flags, ItNexus to) {
        byte[] p = moveList(key, newKey, flags, 1, TransportId.encode(to));
        h.good(from, 0, moveCdb(p.length), p);
    }

    private void moveFails(ItNexus from, long key, long newKey, int relativePort, byte[] id, SenseReason expected) {
        byte[] p = moveList(key, newKey, 0, relativePort, id);
        ScsiTask t = h.run(from, 0, moveCdb(p.length), p);
        try {
            Harness.assertSense(t, expected);
        } finally {
            t.recycle();
        }
    }

    @Test
    void registerAndMoveHandsTheReservationToAnotherNexus() {
        register(A, 1);
        reserve(A, 1, 1); // WRITE EXCLUSIVE
        int generation = (int) Cdb.u32(h.good(C, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null), 0);
        move(A, 1, 9, 0, B);
        byte[] res = h.good(C, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(9, Cdb.u64(res, 8), "B holds it with the service action key");
        assertEquals(1, res[21], "same type");
        byte[] keys = h.good(C, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        assertEquals(generation + 1, Cdb.u32(keys, 0));
        assertEquals(16, Cdb.u32(keys, 4), "A stays registered without UNREG");
        assertEquals(ScsiStatus.GOOD, status(B, write10(0, 1), new byte[512]));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(A, write10(0, 1), new byte[512]));
    }

    @Test
    void registerAndMoveWithUnregLeavesOnlyTheDestination() {
        register(A, 1);
        register(B, 2);
        reserve(A, 1, 3);
        move(A, 1, 7, 0x02, B); // UNREG; B's registration takes the new key
        byte[] keys = h.good(C, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        assertEquals(8, Cdb.u32(keys, 4));
        assertEquals(7, Cdb.u64(keys, 8));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(A, read10(0, 1), null), "EXCLUSIVE ACCESS, now B's");
        assertEquals(ScsiStatus.GOOD, status(B, read10(0, 1), null));
    }

    @Test
    void registerAndMoveNeedsTheHolderWithItsKey() {
        byte[] toB = TransportId.encode(B);
        moveFails(A, 0, 9, 1, toB, SenseReason.RESERVATION_CONFLICT); // not registered
        register(A, 1);
        moveFails(A, 1, 9, 1, toB, SenseReason.RESERVATION_CONFLICT); // no reservation
        register(C, 3);
        reserve(C, 3, 1);
        moveFails(A, 1, 9, 1, toB, SenseReason.RESERVATION_CONFLICT); // registered, not the holder
        moveFails(C, 4, 9, 1, toB, SenseReason.RESERVATION_CONFLICT); // the holder, wrong key
    }

    @Test
    void registerAndMoveRefusesAllRegistrantsReservations() {
        register(A, 1);
        reserve(A, 1, 7);
        moveFails(A, 1, 9, 1, TransportId.encode(B), SenseReason.INVALID_FIELD_IN_CDB);
        h.good(A, 0, prout(2, 7), proutList(1, 0));
        reserve(A, 1, 8);
        moveFails(A, 1, 9, 1, TransportId.encode(B), SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void registerAndMoveParameterErrors() {
        register(A, 1);
        reserve(A, 1, 1);
        byte[] toB = TransportId.encode(B);
        moveFails(A, 1, 9, 1, TransportId.encode(A), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // to itself
        moveFails(A, 1, 0, 1, toB, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // key 0
        moveFails(A, 1, 9, 2, toB, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // no such port
        byte[] device = toB.clone();
        device[0] = 0x05; // format 00b: a device name, no single port
        moveFails(A, 1, 9, 1, device, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        byte[] fibreChannel = toB.clone();
        fibreChannel[0] = 0x40;
        moveFails(A, 1, 9, 1, fibreChannel, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        moveFails(A, 1, 9, 1, new byte[0], SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        byte[] truncated = moveList(1, 9, 0, 1, toB);
        Cdb.putInt(truncated, 20, toB.length + 4); // says more than the list holds
        ScsiTask t = h.run(A, 0, moveCdb(truncated.length), truncated);
        Harness.assertSense(t, SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        t.recycle();
        byte[] aptpl = moveList(1, 9, 0x01, 1, toB);
        h.check(A, 0, moveCdb(aptpl.length), aptpl, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // no store: PTPL_C=0
        byte[] res = h.good(C, 0, cdb("5e 01 00 00 00 00 00 01 00 00"), null);
        assertEquals(1, Cdb.u64(res, 8), "none of them moved it");
    }
}
