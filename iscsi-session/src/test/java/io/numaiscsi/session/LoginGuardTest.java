package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.config.LimitsSettings;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginGuardTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong clock = new AtomicLong();
    private final LimitsSettings limits = new LimitsSettings(
            16,
            16,
            1 << 20,
            4,
            1,
            Duration.ofSeconds(10),
            Duration.ofSeconds(3),
            Duration.ofSeconds(20),
            1 << 20,
            64L << 20);
    private final ConnectionGuards guards = new ConnectionGuards(
            new LoginAdmission(4, 1), new AuthThrottle(5 * SECOND, clock::get), new BufferBudget(64L << 20));

    private LoginGuard guard(String address) throws Exception {
        return new LoginGuard(guards, limits, clock::get, InetAddress.getByName(address));
    }

    @Test
    void aSlotIsTakenOnceAndGivenBackOnce() throws Exception {
        LoginGuard a = guard("127.0.0.2");
        assertNull(a.admit());
        assertNotNull(guard("127.0.0.2").admit(), "one per address here");
        a.release();
        a.release();
        assertEquals(0, guards.logins().inLogin());
        assertNull(guard("127.0.0.2").admit());
    }

    @Test
    void timeoutsPerPduAndInAll() throws Exception {
        LoginGuard g = guard("127.0.0.1");
        clock.addAndGet(3 * SECOND);
        assertNull(g.brokenTimeout());
        clock.addAndGet(1);
        assertTrue(g.brokenTimeout().contains("limits.login-pdu-timeout"));
        for (int i = 0; i < 4; i++) {
            g.pduArrived();
            clock.addAndGet(2 * SECOND);
        }
        g.pduArrived();
        clock.addAndGet(SECOND);
        assertTrue(g.brokenTimeout().contains("limits.login-timeout"), "a PDU every 2 s still ends at 10 s");
    }

    @Test
    void aHeldAnswerIsNotThePeersDelay() throws Exception {
        LoginGuard g = guard("127.0.0.3");
        assertEquals(0, g.holdAnswer("iqn.2026-11.test:x", true), "the first failure is answered at once");
        assertFalse(g.answerHeld());
        long delay = g.holdAnswer("iqn.2026-11.test:x", false);
        assertTrue(delay > 0 && g.answerHeld(), "the next answer to this source is held");
        clock.addAndGet(4 * SECOND);
        assertNull(g.brokenTimeout(), "waiting for our own answer is not the peer's silence");
        g.answered();
        assertNotNull(g.brokenTimeout());
    }
}
