package io.numaiscsi.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import io.numaiscsi.blockdev.CompletionPolling;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SpinThenBlockStrategyTest {

    @Test
    void readySocketsAreReturnedAtOnce() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        int r = new SpinThenBlockStrategy(1_000_000_000L, 0)
                .calculateStrategy(
                        () -> {
                            polls.incrementAndGet();
                            return 3;
                        },
                        false);
        assertEquals(3, r);
        assertEquals(1, polls.get());
    }

    @Test
    void pendingTasksAreNeverSpunOn() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        assertEquals(0, new SpinThenBlockStrategy(1_000_000_000L, 0).calculateStrategy(nothingReady(polls), true));
        assertEquals(1, polls.get(), "one poll, then back to the tasks");
    }

    @Test
    void anEventDuringTheSpinEndsItAndNoEventEndsInABlockingWait() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        assertEquals(
                1,
                new SpinThenBlockStrategy(10_000_000_000L, 0)
                        .calculateStrategy(() -> polls.incrementAndGet() == 5 ? 1 : 0, false),
                "the fifth poll finds a socket");
        assertEquals(5, polls.get());
        polls.set(0);
        assertEquals(
                SelectStrategy.SELECT,
                new SpinThenBlockStrategy(1_000, 0).calculateStrategy(nothingReady(polls), false));
        assertTrue(polls.get() >= 1);
    }

    @Test
    void aSpinThatRanOutMakesTheNextWaitBlockAtOnce() throws Exception {
        SpinThenBlockStrategy strategy = new SpinThenBlockStrategy(1_000, 0);
        AtomicInteger polls = new AtomicInteger();
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(nothingReady(polls), false));
        Thread.sleep(20); // the blocking wait: far longer than the 1 us budget
        polls.set(0);
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(nothingReady(polls), false));
        assertEquals(1, polls.get(), "no spin: one poll, then block");
    }

    @Test
    void aShortBlockingWaitTurnsTheSpinBackOn() throws Exception {
        SpinThenBlockStrategy strategy = new SpinThenBlockStrategy(TimeUnit.MILLISECONDS.toNanos(200), 0);
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false), "the spin runs out: block");
        // called again at once: that blocking wait was shorter than the budget, so this one spins
        AtomicInteger polls = new AtomicInteger();
        assertEquals(1, strategy.calculateStrategy(() -> polls.incrementAndGet() == 3 ? 1 : 0, false));
        assertEquals(3, polls.get(), "it spun until the third poll found a socket");
    }

    @Test
    void aTaskPostedFromAnotherThreadEndsTheSpin() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            // on the loop's own thread, as in an epoll event loop; nothing becomes ready on the "sockets"
            CompletableFuture<Integer> result = new CompletableFuture<>();
            loop.execute(() -> {
                try {
                    result.complete(new SpinThenBlockStrategy(TimeUnit.SECONDS.toNanos(60), 0)
                            .calculateStrategy(() -> 0, false));
                } catch (Exception e) {
                    result.completeExceptionally(e);
                }
            });
            Thread.sleep(50);
            loop.execute(() -> {});
            assertEquals(0, result.get(60, TimeUnit.SECONDS), "back to run the task, not to block (SELECT)");
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** Sockets that are never ready, counting the polls. */
    private static IntSupplier nothingReady(AtomicInteger polls) {
        return () -> {
            polls.incrementAndGet();
            return 0;
        };
    }

    /** A store with I/O in flight for {@code polls} polls, counting polls and hand-offs. */
    private static final class FakeStore implements CompletionPolling.Pollable {
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger handOffs = new AtomicInteger();
        private final int inFlightFor;

        FakeStore(int inFlightFor) {
            this.inFlightFor = inFlightFor;
        }

        @Override
        public boolean poll() {
            return polls.incrementAndGet() < inFlightFor;
        }

        @Override
        public void handOff() {
            handOffs.incrementAndGet();
        }
    }

    @Test
    void aThreadWithIoInFlightPollsItBeyondTheSpinAndItsLastCompletionEndsTheWait() throws Exception {
        FakeStore store = new FakeStore(5);
        CompletionPolling.installOnCurrentThread().add(store);
        SpinThenBlockStrategy strategy = new SpinThenBlockStrategy(1_000, TimeUnit.SECONDS.toNanos(10));
        assertEquals(0, strategy.calculateStrategy(() -> 0, false), "back to the loop, not to block");
        assertEquals(5, store.polls.get(), "polled until the store had nothing in flight");
        assertEquals(0, store.handOffs.get());
        assertFalse(CompletionPolling.current().active());
    }

    @Test
    void ioThatOutlastsThePollIsHandedToItsReaperBeforeTheThreadBlocks() throws Exception {
        FakeStore store = new FakeStore(Integer.MAX_VALUE);
        CompletionPolling.installOnCurrentThread().add(store);
        SpinThenBlockStrategy strategy = new SpinThenBlockStrategy(1_000, 1_000_000);
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false));
        assertTrue(store.polls.get() >= 2, "polled while it waited");
        assertEquals(1, store.handOffs.get());
        assertFalse(CompletionPolling.current().active());
    }

    @Test
    void ioInFlightIsPolledOnEveryPassOfABusyLoop() throws Exception {
        FakeStore store = new FakeStore(Integer.MAX_VALUE);
        CompletionPolling polling = CompletionPolling.installOnCurrentThread();
        polling.add(store);
        try {
            SpinThenBlockStrategy strategy = new SpinThenBlockStrategy(1_000_000_000L, 1_000_000_000L);
            assertEquals(0, strategy.calculateStrategy(() -> 0, true), "tasks are waiting: back to them");
            assertEquals(2, strategy.calculateStrategy(() -> 2, false), "sockets are ready: back to them");
            assertEquals(2, store.polls.get(), "one poll per pass");
            assertEquals(0, store.handOffs.get(), "the loop did not block");
        } finally {
            polling.handOff();
        }
    }

    /** A device whose I/O is in flight until {@code doneAt}, on a clock that moves 10 us each time it is read. */
    private static final class TimedStore implements CompletionPolling.Pollable {
        long now = 1_000_000_000L;
        long doneAt;
        int handOffs;

        long tick() {
            now += 10_000;
            return now;
        }

        @Override
        public boolean poll() {
            return now < doneAt;
        }

        @Override
        public void handOff() {
            handOffs++;
        }
    }

    @Test
    void aDeviceSlowerThanTheShortPollIsPolledThroughOnceItsWaitsAreKnown() throws Exception {
        TimedStore store = new TimedStore();
        CompletionPolling polling = CompletionPolling.installOnCurrentThread();
        SpinThenBlockStrategy strategy = new SpinThenBlockStrategy(0, 1_000_000, store::tick);
        try {
            int handedOff = 0;
            for (int command = 0; command < 40; command++) {
                store.doneAt = store.now + 400_000; // a loop device's read: 400 us
                polling.add(store);
                if (strategy.calculateStrategy(() -> 0, false) == SelectStrategy.SELECT) {
                    handedOff++;
                    store.now = Math.max(store.now, store.doneAt) + 20_000; // the reaper wakes the thread
                }
                if (command == 0) {
                    assertEquals(1, handedOff, "unknown device: the short poll, then the reaper");
                }
            }
            assertTrue(handedOff < 10, handedOff + " of 40 reads handed off");
            store.handOffs = 0;
            for (int command = 0; command < 10; command++) {
                store.doneAt = store.now + 400_000;
                polling.add(store);
                assertEquals(0, strategy.calculateStrategy(() -> 0, false), "the read answered while polled");
            }
            assertEquals(0, store.handOffs);
        } finally {
            polling.handOff();
        }
    }
}
