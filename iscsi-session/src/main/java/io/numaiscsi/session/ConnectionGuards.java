package io.numaiscsi.session;

import io.numaiscsi.config.LimitsSettings;

/**
 * The daemon-wide guards every connection answers to, whatever its transport: login slots, the throttle on
 * failed logins, and the data buffer budget.
 */
public record ConnectionGuards(LoginAdmission logins, AuthThrottle authThrottle, BufferBudget buffers) {
    /** Failed-login delays grow to at most this. */
    static final long MAX_AUTH_DELAY_NANOS = 5_000_000_000L;

    public static ConnectionGuards of(LimitsSettings limits) {
        return new ConnectionGuards(
                new LoginAdmission(limits.maxLogins(), limits.loginsPerAddress()),
                new AuthThrottle(MAX_AUTH_DELAY_NANOS, System::nanoTime),
                new BufferBudget(limits.bufferMemory()));
    }
}
