package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReservationStateTest {
    private static ReservationState.Registration reg(ItNexus n, long key) {
        return new ReservationState.Registration(n, key);
    }

    @Test
    void aHolderMustBeRegisteredUnlessEveryRegistrantHolds() {
        assertThrows(IllegalArgumentException.class, () -> new ReservationState(true, 1, List.of(reg(A, 1)), 1, B));
        assertThrows(IllegalArgumentException.class, () -> new ReservationState(true, 1, List.of(reg(A, 1)), 1, null));
        ReservationState allRegistrants = new ReservationState(true, 1, List.of(reg(A, 1)), 7, B);
        assertEquals(B, allRegistrants.holder(), "the nexus that reserved, kept even after it left");
        assertThrows(
                IllegalArgumentException.class,
                () -> new ReservationState(true, 1, List.of(), 8, null),
                "an all-registrants reservation without registrants");
    }

    @Test
    void refusesWhatIsNoState() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new ReservationState(true, 1, List.of(reg(A, 1), reg(A, 2)), 0, null),
                "a nexus twice");
        assertThrows(
                IllegalArgumentException.class,
                () -> new ReservationState(true, 1, List.of(reg(A, 1)), 2, A),
                "type 2 is obsolete");
        assertThrows(IllegalArgumentException.class, () -> reg(A, 0), "key 0 is no registration");
    }

    @Test
    void withoutReservationTheHolderIsDropped() {
        assertNull(new ReservationState(true, 0, List.of(reg(A, 1)), 0, A).holder());
    }
}
