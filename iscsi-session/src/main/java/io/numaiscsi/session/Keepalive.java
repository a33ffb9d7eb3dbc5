package io.numaiscsi.session;

import java.util.function.LongSupplier;

/**
 * NOP-In keepalive of one connection (RFC 7143 11.19): after {@code interval} of silence ping the
 * initiator; drop the connection when nothing at all arrived for {@code timeout}. Driven by a periodic
 * {@link #tick()} on the connection's thread; time comes from an injected clock.
 */
final class Keepalive {
    enum Action {
        NONE,
        PING,
        DROP
    }

    private final LongSupplier nanoClock;
    private final long intervalNanos;
    private final long timeoutNanos;
    private long lastReceive;
    private long lastPing;
    private int nextPingTag = 1;
    private int outstandingTag = -1;

    Keepalive(LongSupplier nanoClock, long intervalNanos, long timeoutNanos) {
        this.nanoClock = nanoClock;
        this.intervalNanos = intervalNanos;
        this.timeoutNanos = timeoutNanos;
        this.lastReceive = nanoClock.getAsLong();
    }

    void received() {
        lastReceive = nanoClock.getAsLong();
    }

    void pong(int tag) {
        if (tag == outstandingTag) {
            outstandingTag = -1;
        }
    }

    Action tick() {
        long now = nanoClock.getAsLong();
        long silent = now - lastReceive;
        if (timeoutNanos > 0 && silent >= timeoutNanos) {
            return Action.DROP;
        }
        if (intervalNanos > 0 && silent >= intervalNanos && now - lastPing >= intervalNanos) {
            lastPing = now;
            return Action.PING;
        }
        return Action.NONE;
    }

    /** Target Transfer Tag for the ping being sent; never the reserved 0xffffffff. */
    int nextPingTag() {
        int tag = nextPingTag;
        nextPingTag = nextPingTag == 0x7fffffff ? 1 : nextPingTag + 1;
        outstandingTag = tag;
        return tag;
    }

    long silentMillis() {
        return (nanoClock.getAsLong() - lastReceive) / 1_000_000;
    }
}
