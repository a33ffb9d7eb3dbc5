package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BufferBudgetTest {

    @Test
    void chargesUpToTheLimitAndWakesWaitersOnRelease() {
        BufferBudget budget = new BufferBudget(100);
        assertTrue(budget.tryCharge(60));
        assertFalse(budget.tryCharge(41));
        AtomicInteger woken = new AtomicInteger();
        budget.awaitRelease(woken::incrementAndGet, 41);
        assertEquals(0, woken.get());
        budget.release(10);
        assertEquals(1, woken.get());
        budget.release(10);
        assertEquals(1, woken.get(), "a waiter is woken once per registration");
        assertEquals(40, budget.used());
    }

    @Test
    void aWaiterArrivingAfterTheReleaseIsWokenAtOnce() {
        BufferBudget budget = new BufferBudget(100);
        assertTrue(budget.tryCharge(100));
        budget.release(50);
        AtomicInteger woken = new AtomicInteger();
        budget.awaitRelease(woken::incrementAndGet, 50);
        assertEquals(1, woken.get());
    }

    @Test
    void forcedChargesMayExceedTheLimit() {
        BufferBudget budget = new BufferBudget(10);
        budget.forceCharge(15);
        assertFalse(budget.tryCharge(1));
        budget.release(15);
        assertTrue(budget.tryCharge(10));
    }
}
