package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuthThrottleTest {
    private static final long MS = 1_000_000L;
    private static final long MAX = 5_000 * MS;

    private static InetAddress address(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void delayDoublesPerFailureUpToTheBound() throws Exception {
        AtomicLong clock = new AtomicLong();
        AuthThrottle throttle = new AuthThrottle(MAX, clock::get);
        InetAddress guesser = address("127.0.0.2");
        assertEquals(0, throttle.delayNanos(guesser, "iqn.2026-11.test:victim"));
        long[] expected = {100 * MS, 200 * MS, 400 * MS, 800 * MS, 1600 * MS, 3200 * MS, MAX, MAX};
        for (long delay : expected) {
            throttle.failed(guesser, "iqn.2026-11.test:victim");
            assertEquals(delay, throttle.delayNanos(guesser, null));
        }
    }

    @Test
    void perNameFollowsTheNameToAnotherAddressCaseInsensitively() throws Exception {
        AuthThrottle throttle = new AuthThrottle(MAX, new AtomicLong()::get);
        for (int i = 0; i < 3; i++) {
            throttle.failed(address("127.0.0.2"), "iqn.2026-11.test:victim");
        }
        assertEquals(400 * MS, throttle.delayNanos(address("127.0.0.3"), "IQN.2026-11.TEST:VICTIM"));
        assertEquals(
                0,
                throttle.delayNanos(address("127.0.0.1"), "iqn.2026-11.test:honest"),
                "another name from another address is not slowed");
    }

    @Test
    void failuresAreForgottenAfterAQuietMinute() throws Exception {
        AtomicLong clock = new AtomicLong();
        AuthThrottle throttle = new AuthThrottle(MAX, clock::get);
        InetAddress guesser = address("127.0.0.2");
        throttle.failed(guesser, null);
        throttle.failed(guesser, null);
        assertEquals(2, throttle.failures(guesser));
        clock.addAndGet(AuthThrottle.FORGET_AFTER_NANOS + 1);
        assertEquals(0, throttle.failures(guesser));
        assertEquals(0, throttle.delayNanos(guesser, null));
    }

    @Test
    void tableIsBounded() throws Exception {
        AuthThrottle throttle = new AuthThrottle(MAX, new AtomicLong()::get);
        for (int i = 0; i < AuthThrottle.MAX_ENTRIES + 100; i++) {
            throttle.failed(null, "iqn.2026-11.test:n" + i);
        }
        assertEquals(0, throttle.delayNanos(address("127.0.0.9"), "iqn.2026-11.test:n0"), "the oldest went first");
    }
}
