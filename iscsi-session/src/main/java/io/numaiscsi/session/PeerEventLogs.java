package io.numaiscsi.session;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon-wide rate limits on log lines a peer can cause at will: each kind logs its first
 * {@link #BURST} events per {@link #INTERVAL_NANOS} one by one, then counts.
 */
public final class PeerEventLogs {
    private static final Logger LOG = LoggerFactory.getLogger(PeerEventLogs.class);
    static final long INTERVAL_NANOS = 10_000_000_000L;
    static final int BURST = 20;

    public static final RateLimitedLog CONNECTION_REFUSALS = of("refused connections");
    public static final RateLimitedLog LOGIN_FAILURES = of("failed or dropped logins");
    public static final RateLimitedLog REJECTED_PDUS = of("rejected PDUs");
    public static final RateLimitedLog TASK_MANAGEMENT = of("task management functions");
    public static final RateLimitedLog CONNECTION_ENDS = of("connection ends");

    private PeerEventLogs() {}

    private static RateLimitedLog of(String what) {
        return new RateLimitedLog(LOG, what, INTERVAL_NANOS, BURST, System::nanoTime);
    }
}
