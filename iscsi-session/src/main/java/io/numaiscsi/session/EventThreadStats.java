package io.numaiscsi.session;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters of one event thread: commands completed, and per-stage queueing delay as nanosecond sums and
 * counts (mean = sum / count), as in the reference study's enqueue/dequeue timestamps. Written only by
 * the owning thread (lazySet), read by the metrics scraper.
 */
public final class EventThreadStats {
    /** The stages a command passes through; each delay is measured from the previous stamp. */
    public enum Stage {
        /** Command complete (all data in) until it starts on its LUN's thread. */
        LUN_QUEUE,
        /** Start on the LUN thread until the SCSI layer completes it (backing I/O included). */
        EXECUTE,
        /** SCSI completion until the response is sent from the connection's thread. */
        COMPLETION_QUEUE
    }

    private final Thread thread;
    private final AtomicLongArray delaySum = new AtomicLongArray(Stage.values().length);
    private final AtomicLongArray delayCount = new AtomicLongArray(Stage.values().length);
    private volatile long commands;
    private volatile long executed;
    private volatile long bytes;

    EventThreadStats(Thread thread) {
        this.thread = thread;
    }

    public Thread thread() {
        return thread;
    }

    void stage(Stage stage, long nanos) {
        int i = stage.ordinal();
        delaySum.lazySet(i, delaySum.get(i) + nanos);
        delayCount.lazySet(i, delayCount.get(i) + 1);
    }

    @SuppressWarnings("NonAtomicOperationOnVolatileField") // single writer
    void completed(int transferredBytes) {
        commands++;
        bytes += transferredBytes;
    }

    /** A command started executing on this thread (its LUN's thread). */
    @SuppressWarnings("NonAtomicOperationOnVolatileField") // single writer
    void executed() {
        executed++;
    }

    public long executedCommands() {
        return executed;
    }

    public long commands() {
        return commands;
    }

    public long bytes() {
        return bytes;
    }

    public long delaySumNanos(Stage stage) {
        return delaySum.get(stage.ordinal());
    }

    public long delayCount(Stage stage) {
        return delayCount.get(stage.ordinal());
    }
}
