package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** APTPL: PERSISTENT RESERVE OUT with a unit that keeps its reservations in a store. */
class PersistentReserveOutTest {
    private static final ItNexus C = new ItNexus("iqn.1994-05.com.redhat:gamma", 3, Harness.TARGET, 1);
    private static final byte[] READ_KEYS = cdb("5e 00 00 00 00 00 00 01 00 00");
    private static final byte[] READ_RESERVATION = cdb("5e 01 00 00 00 00 00 01 00 00");
    private static final byte[] REPORT_CAPABILITIES = cdb("5e 02 00 00 00 00 00 01 00 00");

    private final MemoryReservationStore store = new MemoryReservationStore();

    private static Harness harnessWith(ReservationStore store) throws IOException {
        LogicalUnit unit =
                new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(1 << 20, 512));
        unit.reservationStore(store);
        return new Harness(unit);
    }

    private static byte[] prout(int serviceAction, int type) {
        return cdb(String.format("5f %02x %02x 00 00 00 00 00 18 00", serviceAction, type));
    }

    private static byte[] list(long key, long serviceActionKey, boolean aptpl) {
        byte[] p = new byte[24];
        Cdb.putLong(p, 0, key);
        Cdb.putLong(p, 8, serviceActionKey);
        p[20] = (byte) (aptpl ? 1 : 0);
        return p;
    }

    private static int ptpl(Harness h) {
        byte[] caps = h.good(A, 0, REPORT_CAPABILITIES, null);
        return (caps[2] & 1) << 1 | caps[3] & 1; // PTPL_C, PTPL_A
    }

    private static int status(Harness h, ItNexus n, byte[] cdb, byte[] data) {
        ScsiTask t = h.run(n, 0, cdb, data);
        int s = t.status();
        t.recycle();
        return s;
    }

    @Test
    void aptplSavesEveryChangeUntilARegisterTurnsItOff() throws IOException {
        Harness h = harnessWith(store);
        assertEquals(0b10, ptpl(h), "PTPL_C, not yet PTPL_A");
        h.good(A, 0, prout(0, 0), list(0, 0xA1, true));
        assertEquals(0b11, ptpl(h), "PTPL_A after REGISTER with APTPL");
        assertEquals(1, store.saves.size());
        h.good(A, 0, prout(1, 1), list(0xA1, 0, false)); // RESERVE: its APTPL bit means nothing
        h.good(B, 0, prout(6, 0), list(0, 0xB2, false)); // REGISTER AND IGNORE EXISTING KEY with APTPL=0: off
        assertEquals(0b10, ptpl(h));
        assertEquals(3, store.saves.size(), "the change that turns APTPL off is handed over too");
        assertNull(store.saved, "and the store forgets the unit");
        assertFalse(store.saves.get(2).aptpl());
        h.good(A, 0, prout(2, 1), list(0xA1, 0, false)); // RELEASE with APTPL off: nothing to save
        assertEquals(3, store.saves.size());
    }

    @Test
    void theSavedStateIsTheWholeState() throws IOException {
        Harness h = harnessWith(store);
        h.good(A, 0, prout(0, 0), list(0, 0xA1, true));
        h.good(B, 0, prout(0, 0), list(0, 0xB2, true));
        h.good(B, 0, prout(1, 5), list(0xB2, 0, false));
        ReservationState s = store.saved;
        assertTrue(s.aptpl());
        assertEquals(2, s.generation());
        assertEquals(
                List.of(new ReservationState.Registration(A, 0xA1), new ReservationState.Registration(B, 0xB2)),
                s.registrations());
        assertEquals(5, s.type());
        assertEquals(B, s.holder());
    }

    @Test
    void aRestartedUnitHasTheRegistrationsAndTheReservation() throws IOException {
        Harness before = harnessWith(store);
        before.good(A, 0, prout(0, 0), list(0, 0xA1, true));
        before.good(B, 0, prout(0, 0), list(0, 0xB2, true));
        before.good(A, 0, prout(1, 1), list(0xA1, 0, false)); // WRITE EXCLUSIVE

        Harness after = harnessWith(new MemoryReservationStore(store.saved));
        assertEquals(0b11, ptpl(after));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(after, B, write10(0, 1), new byte[512]));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, status(after, C, write10(0, 1), new byte[512]));
        assertEquals(ScsiStatus.GOOD, status(after, C, read10(0, 1), null), "WRITE EXCLUSIVE lets others read");
        assertEquals(ScsiStatus.GOOD, status(after, A, write10(0, 1), new byte[512]), "the holder's nexus writes");
        byte[] keys = after.good(C, 0, READ_KEYS, null);
        assertEquals(2, Cdb.u32(keys, 0), "PRgeneration");
        assertEquals(16, Cdb.u32(keys, 4));
        byte[] reservation = after.good(C, 0, READ_RESERVATION, null);
        assertEquals(0xA1, Cdb.u64(reservation, 8));
        assertEquals(1, reservation[21]);
        // the registrations work as before: B's key preempts
        after.good(B, 0, prout(4, 1), list(0xB2, 0xA1, false));
        assertEquals(ScsiStatus.GOOD, status(after, B, write10(0, 1), new byte[512]));
    }

    @Test
    void aptplNeedsAStoreThatPersists() throws IOException {
        Harness h = harnessWith(ReservationStore.NONE);
        assertEquals(0b00, ptpl(h));
        h.check(A, 0, prout(0, 0), list(0, 1, true), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        h.good(A, 0, prout(0, 0), list(0, 1, false));
        h.good(A, 0, prout(1, 1), list(1, 0, true)); // RESERVE ignores the bit
    }

    @Test
    void statusWaitsUntilTheStateIsDurable() throws IOException {
        Harness h = harnessWith(store);
        store.defer = true;
        ScsiTask t = start(h, A, prout(0, 0), list(0, 0xA1, true));
        assertEquals(0, h.completions, "no status before the store has the state");
        store.completeOne();
        assertEquals(1, h.completions);
        assertEquals(ScsiStatus.GOOD, t.status());
        t.recycle();
    }

    @Test
    void aStateThatCannotBeSavedFailsTheCommand() throws IOException {
        Harness h = harnessWith(store);
        store.failNext = new IOException("disk full");
        h.check(A, 0, prout(0, 0), list(0, 0xA1, true), SenseReason.INTERNAL_TARGET_FAILURE);
        h.good(A, 0, prout(1, 1), list(0xA1, 0, false)); // the registration stands; this save carries it
        assertEquals(1, store.saved.registrations().size());
    }

    @Test
    void preemptAndAbortAnswersAfterSavingAndAborting() throws IOException {
        Harness h = harnessWith(store);
        h.good(A, 0, prout(0, 0), list(0, 0xA1, true));
        h.good(B, 0, prout(0, 0), list(0, 0xB2, true));
        h.good(B, 0, prout(1, 1), list(0xB2, 0, false));
        store.defer = true;
        int before = h.completions;
        ScsiTask t = start(h, A, prout(5, 1), list(0xA1, 0xB2, false));
        assertEquals(before, h.completions, "no status before the store has the state");
        store.completeOne();
        assertEquals(ScsiStatus.GOOD, t.status());
        t.recycle();
        assertEquals(List.of(new ReservationState.Registration(A, 0xA1)), store.saved.registrations());
        assertEquals(A, store.saved.holder());
    }

    /** Starts a PR OUT without waiting for its completion (the store may hold it back). */
    private static ScsiTask start(Harness h, ItNexus n, byte[] cdb, byte[] data) {
        ScsiTask t = new ScsiTask(h);
        t.init(n, 0, Unpooled.wrappedBuffer(cdb), 0, cdb.length, data.length, false, true);
        assertTrue(h.target.prepare(t));
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(data.length);
        buf.writeBytes(data);
        t.dataOut(buf);
        h.target.execute(t);
        return t;
    }
}
