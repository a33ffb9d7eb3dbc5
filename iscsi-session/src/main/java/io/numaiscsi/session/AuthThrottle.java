package io.numaiscsi.session;

import io.numaiscsi.config.AccessList;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Slows down guessing of CHAP secrets and target names: every failed login (authentication or authorization)
 * is remembered per source address and per initiator name, and the login responses to a source or a name with
 * recent failures are held back by a delay that doubles with each failure, from {@link #BASE_DELAY_NANOS} up to
 * a bound. Success and failure are delayed alike while a source is throttled, so the delay itself tells a
 * guesser nothing. Failures are forgotten after {@link #FORGET_AFTER_NANOS} without one; the table holds at most
 * {@link #MAX_ENTRIES} sources and names (the oldest go first).
 */
public final class AuthThrottle {
    static final long BASE_DELAY_NANOS = 100_000_000L;
    static final long FORGET_AFTER_NANOS = 60_000_000_000L;
    static final int MAX_ENTRIES = 4096;

    private final long maxDelayNanos;
    private final LongSupplier nanoClock;
    private final Map<Object, Failures> failures = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Object, Failures> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    private static final class Failures {
        int count;
        long last;
    }

    private record NameKey(String normalizedName) {}

    public AuthThrottle(long maxDelayNanos, LongSupplier nanoClock) {
        this.maxDelayNanos = maxDelayNanos;
        this.nanoClock = nanoClock;
    }

    /** How long to hold back a login response to this source and initiator name (null: not yet known). */
    public synchronized long delayNanos(InetAddress from, String initiatorName) {
        long now = nanoClock.getAsLong();
        int n = Math.max(count(from, now), initiatorName == null ? 0 : count(nameKey(initiatorName), now));
        if (n == 0) {
            return 0;
        }
        int doublings = Math.min(n - 1, 30);
        return Math.min(maxDelayNanos, BASE_DELAY_NANOS << doublings);
    }

    /** A login from this source, for this name, failed authentication or authorization. */
    public synchronized void failed(InetAddress from, String initiatorName) {
        long now = nanoClock.getAsLong();
        bump(from, now);
        if (initiatorName != null) {
            bump(nameKey(initiatorName), now);
        }
    }

    /** Failures remembered for this source address. */
    public synchronized int failures(InetAddress from) {
        return count(from, nanoClock.getAsLong());
    }

    private static NameKey nameKey(String initiatorName) {
        return new NameKey(AccessList.normalizedName(initiatorName));
    }

    private int count(Object key, long now) {
        Failures f = failures.get(key);
        if (f == null) {
            return 0;
        }
        if (now - f.last > FORGET_AFTER_NANOS) {
            failures.remove(key);
            return 0;
        }
        return f.count;
    }

    private void bump(Object key, long now) {
        Failures f = failures.get(key);
        if (f == null || now - f.last > FORGET_AFTER_NANOS) {
            f = new Failures();
            failures.put(key, f);
        }
        f.count = Math.min(f.count + 1, 1_000_000);
        f.last = now;
    }
}
