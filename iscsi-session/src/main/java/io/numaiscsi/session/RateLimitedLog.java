package io.numaiscsi.session;

import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * A log line for an event a peer can repeat at will (a failed login, a rejected PDU, a task management
 * function): the first {@code burst} events of each interval are logged one by one, the rest are counted and
 * written as one summary line when the next interval begins, so a flood cannot flood the log.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final String what;
    private final long intervalNanos;
    private final int burst;
    private final LongSupplier nanoClock;
    private long windowStart;
    private int inWindow;
    private long suppressed;
    private boolean started;

    public RateLimitedLog(Logger log, String what, long intervalNanos, int burst, LongSupplier nanoClock) {
        if (intervalNanos <= 0 || burst < 1) {
            throw new IllegalArgumentException("interval and burst must be positive");
        }
        this.log = log;
        this.what = what;
        this.intervalNanos = intervalNanos;
        this.burst = burst;
        this.nanoClock = nanoClock;
    }

    /** Whether this event may be logged in full; false means it was counted for the summary instead. */
    public boolean permit() {
        long now = nanoClock.getAsLong();
        long summary;
        boolean permitted;
        synchronized (this) {
            summary = 0;
            if (!started || now - windowStart >= intervalNanos) {
                summary = suppressed;
                started = true;
                windowStart = now;
                inWindow = 0;
                suppressed = 0;
            }
            permitted = ++inWindow <= burst;
            if (!permitted) {
                suppressed++;
            }
        }
        if (summary > 0) {
            log.warn(
                    "{} more {} in the last {} s were not logged one by one",
                    summary,
                    what,
                    Math.max(1, intervalNanos / 1_000_000_000L));
        }
        return permitted;
    }

    /** Events counted but not yet summarised. */
    synchronized long pending() {
        return suppressed;
    }
}
