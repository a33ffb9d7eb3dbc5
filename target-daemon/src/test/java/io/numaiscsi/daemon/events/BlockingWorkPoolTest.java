package io.numaiscsi.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class BlockingWorkPoolTest {
    /** Generous: only a hang guard, never a performance bound. */
    private static final long HANG_GUARD_SECONDS = 120;

    private final List<Thread> started = new CopyOnWriteArrayList<>();
    private final ThreadFactory factory = r -> {
        Thread t = new Thread(r, "pool-test-" + started.size());
        t.setDaemon(true);
        started.add(t);
        return t;
    };

    @Test
    void tasksHandedOverWithPausesRunExactlyOnceAndNoneIsLeftWithEveryWorkerAsleep() throws Exception {
        BlockingWorkPool pool = new BlockingWorkPool("test", 3, 1024, factory);
        int rounds = 2_000;
        AtomicIntegerArray ran = new AtomicIntegerArray(rounds * 4);
        CountDownLatch all = new CountDownLatch(rounds * 4);
        Thread[] producers = new Thread[2];
        for (int p = 0; p < producers.length; p++) {
            int half = p;
            producers[p] = new Thread(() -> {
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < 2; k++) {
                        int id = (r * 2 + k) * 2 + half;
                        pool.execute(() -> {
                            ran.incrementAndGet(id);
                            all.countDown();
                        });
                    }
                    if (r % 50 == 0) {
                        sleepQuietly(); // long enough for the workers to park: the next task must wake one
                    }
                }
            });
            producers[p].start();
        }
        for (Thread t : producers) {
            t.join();
        }
        assertTrue(all.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS), "tasks still waiting: " + pool.waiting());
        for (int i = 0; i < ran.length(); i++) {
            assertEquals(1, ran.get(i), "task " + i);
        }
        assertTrue(pool.awaitTermination(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aFullPoolAndAShutDownPoolRefuseAndShutdownRunsWhatWasQueued() throws Exception {
        BlockingWorkPool pool = new BlockingWorkPool("small", 1, 2, factory);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocking = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        pool.execute(() -> {
            blocking.countDown();
            awaitQuietly(release);
        });
        assertTrue(blocking.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        pool.execute(ran::incrementAndGet);
        pool.execute(ran::incrementAndGet);
        RejectedExecutionException full =
                assertThrows(RejectedExecutionException.class, () -> pool.execute(ran::incrementAndGet));
        assertTrue(full.getMessage().contains("2 tasks already wait"), full.getMessage());
        pool.shutdown();
        assertThrows(RejectedExecutionException.class, () -> pool.execute(ran::incrementAndGet));
        release.countDown();
        assertTrue(pool.awaitTermination(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        assertEquals(2, ran.get(), "the two queued before shutdown ran");
    }

    @Test
    void aTaskThatThrowsDoesNotEndItsWorker() throws Exception {
        BlockingWorkPool pool = new BlockingWorkPool("throws", 1, 16, factory);
        CountDownLatch after = new CountDownLatch(1);
        pool.execute(() -> {
            throw new IllegalStateException("expected by the test");
        });
        pool.execute(after::countDown);
        assertTrue(after.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        assertTrue(pool.awaitTermination(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void handingOverATaskAllocatesNothingAtSteadyState() throws Exception {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        BlockingWorkPool pool = new BlockingWorkPool("alloc", 2, 4096, factory);
        AtomicInteger done = new AtomicInteger();
        Runnable task = done::incrementAndGet;
        int n = 200_000;
        submit(pool, task, n); // warm-up: JIT, the workers' first parks
        waitFor(done, n);
        long before = allocated(mx);
        submit(pool, task, n);
        waitFor(done, 2 * n);
        long bytes = allocated(mx) - before;
        pool.awaitTermination(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertTrue(bytes < n / 10, bytes + " bytes allocated by the producer and the workers for " + n + " tasks");
    }

    private long allocated(ThreadMXBean mx) {
        long sum = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (Thread t : started) {
            if (t.getName().startsWith("pool-test")) {
                long b = mx.getThreadAllocatedBytes(t.getId());
                sum += Math.max(0, b);
            }
        }
        return sum;
    }

    private static void submit(BlockingWorkPool pool, Runnable task, int n) {
        for (int i = 0; i < n; i++) {
            while (pool.waiting() > 1024) {
                Thread.onSpinWait(); // never fill the ring: a refusal allocates its exception
            }
            pool.execute(task);
        }
    }

    private static void waitFor(AtomicInteger done, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_SECONDS);
        while (done.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(n, done.get());
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
