package io.numaiscsi.counters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SingleWriterCountersTest {

    @Test
    void countsAddUpPerCounter() {
        SingleWriterCounters c = new SingleWriterCounters(3);
        c.increment(0);
        c.increment(0);
        c.add(2, 4096);
        c.add(2, -96);
        assertEquals(2, c.get(0));
        assertEquals(0, c.get(1));
        assertEquals(4000, c.get(2));
        long[] sums = {10, 20, 30};
        c.addTo(sums);
        assertArrayEquals(new long[] {12, 20, 4030}, sums);
    }

    @Test
    void aCounterOutsideTheSetIsRefusedNotWrittenIntoThePadding() {
        SingleWriterCounters c = new SingleWriterCounters(2);
        assertThrows(IndexOutOfBoundsException.class, () -> c.increment(2));
        assertThrows(IndexOutOfBoundsException.class, () -> c.increment(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> c.get(2));
        assertEquals(0, c.get(0) + c.get(1));
    }

    @Test
    void aReaderSeesEveryCounterGrowAndNeverALaterOneAheadOfAnEarlierOne() throws Exception {
        SingleWriterCounters c = new SingleWriterCounters(2);
        int n = 2_000_000;
        AtomicReference<String> wrong = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            long last = 0;
            while (last < n) {
                long second = c.get(1); // written after counter 0: read first
                long first = c.get(0);
                if (first < last || second > first) {
                    wrong.compareAndSet(null, "read " + first + " after " + last + ", and counter 1 at " + second);
                }
                last = first;
            }
        });
        reader.start();
        for (int i = 0; i < n; i++) {
            c.increment(0);
            c.increment(1);
        }
        reader.join();
        assertEquals(null, wrong.get());
        assertEquals(n, c.get(0));
        assertEquals(n, c.get(1));
    }

    @Test
    void countingAllocatesNothing() {
        SingleWriterCounters c = new SingleWriterCounters(4);
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
