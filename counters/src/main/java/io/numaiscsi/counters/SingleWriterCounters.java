package io.numaiscsi.counters;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A fixed set of counters (numbered from 0) with one writer at a time: one thread, or whoever holds one lock. The writer
 * adds to the value it last stored and stores the sum with a release store: a plain store on x86, no locked
 * instruction, nothing allocated. Any thread reads a counter with an acquire load: a value the writer stored, never
 * torn, never older than one read before. A reader that sees a count also sees every count the writer made before it,
 * so reading counters in the reverse of the order the writer adds to them never shows a later one ahead of an earlier.
 *
 * <p>Two writers at once would lose counts: where several threads count, use {@link PerThreadCounters}.
 */
public final class SingleWriterCounters {
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
    /**
     * Longs of padding on each side of the counters: 128 bytes, two cache lines (the adjacent-line prefetcher fetches
     * lines in pairs), so another writer's memory never shares a cache line with them.
     */
    private static final int PAD = 16;

    private final long[] cells;
    private final int size;

    public SingleWriterCounters(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("a negative number of counters: " + size);
        }
        this.size = size;
        this.cells = new long[PAD + size + PAD];
    }

    /** How many counters. */
    public int size() {
        return size;
    }

    /** Adds {@code delta} to counter {@code i}; the writer only. */
    public void add(int i, long delta) {
        int at = PAD + Objects.checkIndex(i, size);
        CELL.setRelease(cells, at, cells[at] + delta);
    }

    /** Adds one to counter {@code i}; the writer only. */
    public void increment(int i) {
        add(i, 1);
    }

    /** Counter {@code i} as the writer last stored it; any thread. */
    public long get(int i) {
        return (long) CELL.getAcquire(cells, PAD + Objects.checkIndex(i, size));
    }

    /** Adds every counter to the same index of {@code sums} (at least {@link #size()} long); any thread. */
    public void addTo(long[] sums) {
        for (int i = 0; i < size; i++) {
            sums[i] += (long) CELL.getAcquire(cells, PAD + i);
        }
    }
}
