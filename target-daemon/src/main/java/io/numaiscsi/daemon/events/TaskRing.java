package io.numaiscsi.daemon.events;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A bounded multi-producer multi-consumer queue of tasks in an array, without locks and without allocation per
 * element: each slot carries a sequence number that says whether it is free for the producer of position p
 * ({@code p}) or filled for its consumer ({@code p + 1}); producers and consumers claim positions by compare-and-set
 * on their own counter. The slot's task is written before its sequence is published (a volatile write) and read
 * after the sequence is seen (a volatile read). A producer that finds its slot still taken is refused only when the
 * ring holds {@code capacity} tasks; a slot whose consumer has claimed it but not yet freed it is waited for.
 */
final class TaskRing {
    private final Runnable[] tasks;
    private final AtomicLongArray sequence;
    private final int mask;
    private final AtomicLong tail = new AtomicLong(); // next position to fill
    private final AtomicLong head = new AtomicLong(); // next position to take

    TaskRing(int capacity) {
        if (capacity < 2 || capacity > 1 << 30) {
            throw new IllegalArgumentException("capacity " + capacity + " outside 2.." + (1 << 30));
        }
        int size = Integer.highestOneBit(capacity - 1) << 1;
        tasks = new Runnable[size];
        sequence = new AtomicLongArray(size);
        for (int i = 0; i < size; i++) {
            sequence.set(i, i);
        }
        mask = size - 1;
    }

    int capacity() {
        return tasks.length;
    }

    /** Adds {@code task}; false if the ring is full. */
    boolean offer(Runnable task) {
        long pos = tail.get();
        while (true) {
            int slot = (int) pos & mask;
            long diff = sequence.get(slot) - pos;
            if (diff == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    tasks[slot] = task;
                    sequence.set(slot, pos + 1);
                    return true;
                }
                pos = tail.get();
            } else if (diff < 0) {
                if (pos - head.get() >= tasks.length) {
                    return false; // full: the slot still holds the task of the previous lap
                }
                // a consumer has taken the previous lap's task but not yet freed its slot: it is a few instructions
                // from doing so (a full ring would make the caller fail a command that only had to wait)
                Thread.onSpinWait();
                pos = tail.get();
            } else {
                pos = tail.get(); // another producer took this position
            }
        }
    }

    /** The oldest task, or null if the ring is empty. */
    Runnable poll() {
        long pos = head.get();
        while (true) {
            int slot = (int) pos & mask;
            long diff = sequence.get(slot) - (pos + 1);
            if (diff == 0) {
                if (head.compareAndSet(pos, pos + 1)) {
                    Runnable task = tasks[slot];
                    tasks[slot] = null;
                    sequence.set(slot, pos + mask + 1);
                    return task;
                }
                pos = head.get();
            } else if (diff < 0) {
                return null; // not filled yet
            } else {
                pos = head.get(); // another consumer took this position
            }
        }
    }

    /** Tasks in the ring (a snapshot). */
    int size() {
        return (int) Math.max(0, tail.get() - head.get());
    }
}
