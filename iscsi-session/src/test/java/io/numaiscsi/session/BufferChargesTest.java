package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BufferChargesTest {
    private static final long MIB = 1 << 20;

    @Test
    void ownBudgetsPerKindWithOneCommandAloneAllowedPast() {
        BufferBudget shared = new BufferBudget(1024 * MIB);
        BufferCharges c = new BufferCharges(4 * MIB, 2 * MIB, shared, () -> {});
        assertTrue(c.charge(8 * MIB, true), "the only write may exceed the write budget");
        assertFalse(c.charge(MIB, true), "a second does not fit");
        assertTrue(c.charge(2 * MIB, false), "reads have their own budget");
        assertFalse(c.charge(MIB, false));
        assertEquals(8 * MIB, c.writeHeld());
        assertEquals(2 * MIB, c.readHeld());
        assertEquals(10 * MIB, shared.used());
        c.release(8 * MIB, 2 * MIB);
        assertEquals(0, shared.used());
    }

    @Test
    void aFullSharedBudgetLeavesAnIdleConnectionItsGuaranteedBufferAndWakesTheRest() {
        BufferBudget shared = new BufferBudget(16 * MIB);
        assertTrue(shared.tryCharge(16 * MIB)); // others hold it all
        AtomicInteger retries = new AtomicInteger();
        BufferCharges c = new BufferCharges(64 * MIB, 64 * MIB, shared, retries::incrementAndGet);
        assertFalse(c.charge(2 * MIB, true), "more than the guaranteed buffer waits");
        assertTrue(c.charge(BufferCharges.GUARANTEED_BUFFER, true), "the guaranteed buffer is taken past the budget");
        assertFalse(c.charge(MIB, true), "holding something, it waits like everyone");
        assertEquals(0, retries.get());
        shared.release(16 * MIB);
        assertEquals(1, retries.get(), "one wake-up for the waiting connection");
        assertTrue(c.charge(MIB, true));
    }

    @Test
    void forcedChargesCountAsWrites() {
        BufferBudget shared = new BufferBudget(MIB);
        BufferCharges c = new BufferCharges(MIB, MIB, shared, () -> {});
        c.force(3 * MIB);
        assertEquals(3 * MIB, c.writeHeld());
        assertEquals(3 * MIB, shared.used());
    }
}
