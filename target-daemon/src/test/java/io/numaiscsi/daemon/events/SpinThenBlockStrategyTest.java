package io.numaiscsi.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.SelectStrategy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SpinThenBlockStrategyTest {

    @Test
    void readySocketsAreReturnedAtOnce() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        int r = new SpinThenBlockStrategy(1_000_000_000L).calculateStrategy(() -> {
            polls.incrementAndGet();
            return 3;
        }, false);
        assertEquals(3, r);
        assertEquals(1, polls.get());
    }

    @Test
    void pendingTasksAreNeverSpunOn() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        assertEquals(0, new SpinThenBlockStrategy(1_000_000_000L).calculateStrategy(() -> {
            polls.incrementAndGet();
            return 0;
        }, true));
        assertEquals(1, polls.get(), "one poll, then back to the tasks");
    }

    @Test
    void anEventDuringTheSpinEndsItAndNoEventEndsInABlockingWait() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        assertEquals(1, new SpinThenBlockStrategy(10_000_000_000L).calculateStrategy(
                () -> polls.incrementAndGet() == 5 ? 1 : 0, false), "the fifth poll finds a socket");
        assertEquals(5, polls.get());
        polls.set(0);
        assertEquals(SelectStrategy.SELECT, new SpinThenBlockStrategy(1_000).calculateStrategy(() -> {
            polls.incrementAndGet();
            return 0;
        }, false));
        assertTrue(polls.get() >= 1);
    }
}
