package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class KeepaliveTest {
    private long now;
    private final Keepalive keepalive =
            new Keepalive(() -> now, TimeUnit.SECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(30));

    @Test
    void quietConnectionIsPingedOncePerInterval() {
        now += TimeUnit.SECONDS.toNanos(4);
        assertEquals(Keepalive.Action.NONE, keepalive.tick());
        now += TimeUnit.SECONDS.toNanos(1);
        assertEquals(Keepalive.Action.PING, keepalive.tick());
        now += TimeUnit.SECONDS.toNanos(1);
        assertEquals(Keepalive.Action.NONE, keepalive.tick(), "no second ping within the interval");
        now += TimeUnit.SECONDS.toNanos(4);
        assertEquals(Keepalive.Action.PING, keepalive.tick());
    }

    @Test
    void trafficResetsTheSilence() {
        now += TimeUnit.SECONDS.toNanos(29);
        keepalive.received();
        now += TimeUnit.SECONDS.toNanos(29);
        assertNotEquals(Keepalive.Action.DROP, keepalive.tick());
    }

    @Test
    void silenceBeyondTheTimeoutDropsTheConnection() {
        now += TimeUnit.SECONDS.toNanos(30);
        assertEquals(Keepalive.Action.DROP, keepalive.tick());
    }

    @Test
    void pingTagsAreNeverTheReservedTag() {
        for (int i = 0; i < 1000; i++) {
            assertNotEquals(ResponseWriter.RESERVED_TAG, keepalive.nextPingTag());
        }
    }

    @Test
    void zeroIntervalDisablesPingsAndZeroTimeoutDisablesDrops() {
        Keepalive off = new Keepalive(() -> now, 0, 0);
        now += TimeUnit.HOURS.toNanos(1);
        assertEquals(Keepalive.Action.NONE, off.tick());
    }
}
