package io.numaiscsi.counters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class PerThreadCountersTest {

    @Test
    void threadsCountingAtOnceLoseNothing() throws Exception {
        PerThreadCounters c = new PerThreadCounters(2);
        int threads = 4;
        int n = 500_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < n; i++) {
                    c.increment(0);
                    c.add(1, 3);
                }
            });
            th.start();
            all.add(th);
        }
        go.countDown();
        long seen = 0;
        while (seen < (long) threads * n) { // read while they count: it only grows
            long now = c.get(0);
            assertTrue(now >= seen, now + " after " + seen);
            seen = now;
        }
        for (Thread th : all) {
            th.join();
        }
        assertEquals((long) threads * n, c.get(0));
        assertArrayEquals(new long[] {(long) threads * n, 3L * threads * n}, c.snapshot());
    }

    @Test
    void theCountsOfEndedThreadsStayAndTheirCellsGo() throws Exception {
        PerThreadCounters c = new PerThreadCounters(1);
        for (int t = 0; t < 50; t++) {
            Thread th = new Thread(() -> c.add(0, 10));
            th.start();
            th.join();
        }
        assertEquals(500, c.get(0));
        c.increment(0); // this thread registers: the ended ones are folded
        assertEquals(501, c.get(0));
        assertEquals(1, c.writers(), "only this thread's cells are left");
    }

    @Test
    void countingAllocatesNothingAfterTheFirstCount() {
        PerThreadCounters c = new PerThreadCounters(4);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        for (int i = 0; i < 20_000; i++) { // warm up: the JIT may allocate while it compiles
            c.add(i & 3, i);
        }
        long before = mx.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++) {
            c.add(i & 3, i);
        }
        long allocated = mx.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 1024, allocated + " bytes allocated by 100000 counts");
    }
}
