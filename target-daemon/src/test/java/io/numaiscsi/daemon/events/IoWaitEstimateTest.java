package io.numaiscsi.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IoWaitEstimateTest {
    private static final long US = 1_000;
    private static final long MAX = 1_000 * US;

    private static IoWaitEstimate after(long waitNanos, int times) {
        IoWaitEstimate e = new IoWaitEstimate(MAX);
        observe(e, waitNanos, times);
        return e;
    }

    private static void observe(IoWaitEstimate e, long waitNanos, int times) {
        for (int i = 0; i < times; i++) {
            e.observe(waitNanos);
        }
    }

    @Test
    void beforeAnyWaitTheThreadPollsShortly() {
        assertEquals(IoWaitEstimate.SHORT_POLL_NANOS, new IoWaitEstimate(MAX).pollNanos());
    }

    @Test
    void aFastDeviceIsPolledAtLeastTheShortPoll() {
        assertEquals(IoWaitEstimate.SHORT_POLL_NANOS, after(20 * US, 100).pollNanos());
    }

    @Test
    void aDeviceWithinTheLimitIsPolledThreeTimesItsMeanWait() {
        IoWaitEstimate loopDevice = after(300 * US, 100);
        assertTrue(Math.abs(loopDevice.meanNanos() - 300 * US) < US, "mean " + loopDevice.meanNanos());
        assertEquals(3 * loopDevice.meanNanos(), loopDevice.pollNanos());
    }

    @Test
    void aDeviceSlowerThanTheLimitGetsTheShortPollNotTheLimit() {
        assertEquals(IoWaitEstimate.SHORT_POLL_NANOS, after(5_000 * US, 100).pollNanos());
        assertEquals(IoWaitEstimate.SHORT_POLL_NANOS, after(1_200 * US, 100).pollNanos());
        assertEquals(MAX, after(400 * US, 100).pollNanos(), "a mean within the limit: 3 x 400 us, cut to the limit");
    }

    @Test
    void oneStallMovesThePollOnlyForAFewDozenWaits() {
        IoWaitEstimate e = after(100 * US, 100);
        long before = e.pollNanos();
        e.observe(10_000_000_000L); // 10 s: counted as 2 ms
        assertTrue(e.meanNanos() < 400 * US, "one stall is one wait: " + e.meanNanos());
        assertEquals(MAX, e.pollNanos(), "right after the stall: the limit");
        observe(e, 100 * US, 32);
        assertTrue(e.pollNanos() <= before + 20 * US, "back near " + before + ": " + e.pollNanos());
    }

    @Test
    void theLimitBoundsEveryPoll() {
        assertEquals(0, new IoWaitEstimate(0).pollNanos(), "io-poll 0: no poll");
        IoWaitEstimate small = new IoWaitEstimate(100 * US);
        assertEquals(100 * US, small.pollNanos(), "io-poll below the short poll");
        observe(small, 30 * US, 100);
        assertTrue(small.pollNanos() <= 100 * US);
        assertThrows(IllegalArgumentException.class, () -> new IoWaitEstimate(-1));
    }
}
