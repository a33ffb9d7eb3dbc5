package io.numaiscsi.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class TaskRingTest {

    @Test
    void capacityIsRoundedUpToAPowerOfTwoAndAFullRingRefuses() {
        TaskRing ring = new TaskRing(5);
        assertEquals(8, ring.capacity());
        Runnable task = () -> {};
        for (int i = 0; i < 8; i++) {
            assertTrue(ring.offer(task), "offer " + i);
        }
        assertFalse(ring.offer(task));
        assertEquals(8, ring.size());
        assertSame(task, ring.poll());
        assertTrue(ring.offer(task), "a slot freed by poll is offered again");
        assertThrows(IllegalArgumentException.class, () -> new TaskRing(1));
    }

    @Test
    void aSlotClaimedButNotYetFreedIsWaitedForNotReportedFull() throws Exception {
        TaskRing ring = new TaskRing(2);
        Runnable task = () -> {};
        assertTrue(ring.offer(task));
        assertTrue(ring.offer(task));
        assertFalse(ring.offer(task), "two tasks in a ring of two: full");
        // many laps with a producer and a consumer racing on 2 slots: offer only ever fails when 2 tasks wait
        Thread consumer = new Thread(() -> {
            for (int taken = 0; taken < 200_002; ) {
                if (ring.poll() != null) {
                    taken++;
                }
            }
        });
        consumer.start();
        int refused = 0;
        for (int offered = 0; offered < 200_000; ) {
            int before = ring.size();
            if (ring.offer(task)) {
                offered++;
            } else {
                refused++;
                assertTrue(before >= 1, "refused with " + before + " tasks waiting");
            }
        }
        consumer.join(120_000); // a hang guard only
        assertFalse(consumer.isAlive(), "the consumer took every task");
        assertEquals(0, ring.size());
    }

    @Test
    void tasksComeOutInOrderOverManyLaps() {
        TaskRing ring = new TaskRing(4);
        Runnable[] tasks = new Runnable[3];
        for (int i = 0; i < tasks.length; i++) {
            tasks[i] = () -> {};
        }
        for (int lap = 0; lap < 1000; lap++) {
            for (Runnable t : tasks) {
                assertTrue(ring.offer(t));
            }
            for (Runnable t : tasks) {
                assertSame(t, ring.poll());
            }
            assertNull(ring.poll());
        }
        assertEquals(0, ring.size());
    }

    @Test
    void everyTaskOfFourProducersIsTakenExactlyOnceByFourConsumers() throws Exception {
        int producers = 4;
        int perProducer = 50_000;
        TaskRing ring = new TaskRing(64);
        AtomicIntegerArray taken = new AtomicIntegerArray(producers * perProducer);
        Runnable[] tasks = new Runnable[producers * perProducer];
        for (int i = 0; i < tasks.length; i++) {
            int id = i;
            tasks[i] = () -> taken.incrementAndGet(id);
        }
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int first = p * perProducer;
            threads.add(new Thread(() -> {
                for (int i = first; i < first + perProducer; i++) {
                    while (!ring.offer(tasks[i])) {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        AtomicInteger done = new AtomicInteger();
        for (int c = 0; c < 4; c++) {
            threads.add(new Thread(() -> {
                while (done.get() < tasks.length) {
                    Runnable t = ring.poll();
                    if (t != null) {
                        t.run();
                        done.incrementAndGet();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        for (int i = 0; i < tasks.length; i++) {
            assertEquals(1, taken.get(i), "task " + i);
        }
        assertNull(ring.poll());
    }
}
