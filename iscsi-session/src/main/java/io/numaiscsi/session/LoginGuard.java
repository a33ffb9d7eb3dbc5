package io.numaiscsi.session;

import io.numaiscsi.config.LimitsSettings;
import java.net.InetAddress;
import java.util.function.LongSupplier;

/**
 * The guards of one connection's login phase: the login slot it holds (limits.max-logins, logins-per-address),
 * the login timeouts (limits.login-timeout, login-pdu-timeout) and the answers the failed-login throttle holds
 * back. Runs on the connection's thread.
 */
final class LoginGuard {
    private final ConnectionGuards guards;
    private final LimitsSettings limits;
    private final LongSupplier nanoClock;
    private final InetAddress from;
    private final long openedAt;
    private long lastPduAt;
    private boolean holdsSlot;
    private boolean answerHeld;

    LoginGuard(ConnectionGuards guards, LimitsSettings limits, LongSupplier nanoClock, InetAddress from) {
        this.guards = guards;
        this.limits = limits;
        this.nanoClock = nanoClock;
        this.from = from;
        this.openedAt = nanoClock.getAsLong();
        this.lastPduAt = openedAt;
    }

    /** Takes a login slot for the connection: null when admitted, else why not. */
    String admit() {
        String refusal = guards.logins().enter(from);
        holdsSlot = refusal == null;
        return refusal;
    }

    /** The login ended, whichever way: the slot goes back (once). */
    void release() {
        if (holdsSlot) {
            holdsSlot = false;
            guards.logins().leave(from);
        }
    }

    void pduArrived() {
        lastPduAt = nanoClock.getAsLong();
    }

    /** Which login timeout the connection broke, or null. A throttled answer being held is not the peer's delay. */
    String brokenTimeout() {
        long now = nanoClock.getAsLong();
        if (now - openedAt > limits.loginTimeout().toNanos()) {
            return "login not complete after " + limits.loginTimeout().toMillis() + " ms (limits.login-timeout)";
        }
        if (!answerHeld && now - lastPduAt > limits.loginPduTimeout().toNanos()) {
            return "no complete login PDU for " + limits.loginPduTimeout().toMillis()
                    + " ms (limits.login-pdu-timeout)";
        }
        return null;
    }

    /**
     * How long to hold back the answer to the request just handled (0: answer now), from this source's and this
     * name's failures before it; a failed guess is then remembered for the next ones.
     */
    long holdAnswer(String initiatorName, boolean failedGuess) {
        long delay = guards.authThrottle().delayNanos(from, initiatorName);
        if (failedGuess) {
            guards.authThrottle().failed(from, initiatorName);
        }
        answerHeld = delay > 0;
        return delay;
    }

    /** Whether an answer is being held back: the peer must wait for it before it sends anything. */
    boolean answerHeld() {
        return answerHeld;
    }

    void answered() {
        answerHeld = false;
    }
}
