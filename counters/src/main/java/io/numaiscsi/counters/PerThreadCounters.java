package io.numaiscsi.counters;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A fixed set of counters (numbered from 0) that any thread may add to. Each thread that counts gets its own
 * {@link SingleWriterCounters} the first time (its cells padded away from every other writer's), so a count is a
 * thread-local lookup and a release store: no locked instruction, nothing allocated after the first. A reader sums
 * every writer's cells.
 *
 * <p>The cells of threads that have ended are folded into one total whenever a new thread starts counting, so there
 * are never more cells than threads alive plus one set.
 */
public final class PerThreadCounters {
    private final int size;
    private final ThreadLocal<SingleWriterCounters> mine = ThreadLocal.withInitial(this::register);
    private final List<Writer> writers = new ArrayList<>(); // guarded by this
    private final long[] ended; // guarded by this: the counts of writers gone

    private record Writer(Thread thread, SingleWriterCounters counters) {}

    public PerThreadCounters(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("a negative number of counters: " + size);
        }
        this.size = size;
        this.ended = new long[size];
    }

    /** How many counters. */
    public int size() {
        return size;
    }

    /** Adds {@code delta} to counter {@code i}; any thread. */
    public void add(int i, long delta) {
        mine.get().add(i, delta);
    }

    /** Adds one to counter {@code i}; any thread. */
    public void increment(int i) {
        mine.get().add(i, 1);
    }

    /** Counter {@code i}: every writer's count, each as of a recent moment; any thread. */
    public synchronized long get(int i) {
        long sum = ended[i];
        for (Writer w : writers) {
            sum += w.counters.get(i);
        }
        return sum;
    }

    /** Every counter, summed in one pass; any thread. */
    public synchronized long[] snapshot() {
        long[] sums = ended.clone();
        for (Writer w : writers) {
            w.counters.addTo(sums);
        }
        return sums;
    }

    /** Sets of cells kept for writers (tests). */
    synchronized int writers() {
        return writers.size();
    }

    private synchronized SingleWriterCounters register() {
        for (Iterator<Writer> it = writers.iterator(); it.hasNext(); ) {
            Writer w = it.next();
            if (!w.thread.isAlive()) { // it has ended: its counts are final and visible here
                w.counters.addTo(ended);
                it.remove();
            }
        }
        SingleWriterCounters counters = new SingleWriterCounters(size);
        writers.add(new Writer(Thread.currentThread(), counters));
        return counters;
    }
}
