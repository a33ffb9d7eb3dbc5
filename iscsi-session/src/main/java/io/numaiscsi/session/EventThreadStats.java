package io.numaiscsi.session;

import io.numaiscsi.counters.SingleWriterCounters;

/**
 * Counters of one event thread: commands completed, and per-stage queueing delay as nanosecond sums and
 * counts (mean = sum / count), as in the reference study's enqueue/dequeue timestamps. Written only by
 * the owning thread ({@link SingleWriterCounters}), read by the metrics scraper.
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

    private static final int STAGES = Stage.values().length;
    private static final int COMMANDS = 0;
    private static final int EXECUTED = 1;
    private static final int BYTES = 2;
    private static final int DELAY_SUM = 3;
    private static final int DELAY_COUNT = DELAY_SUM + STAGES;

    private final Thread thread;
    private final SingleWriterCounters counts = new SingleWriterCounters(DELAY_COUNT + STAGES);

    EventThreadStats(Thread thread) {
        this.thread = thread;
    }

    public Thread thread() {
        return thread;
    }

    void stage(Stage stage, long nanos) {
        counts.add(DELAY_SUM + stage.ordinal(), nanos);
        counts.increment(DELAY_COUNT + stage.ordinal());
    }

    void completed(int transferredBytes) {
        counts.increment(COMMANDS);
        counts.add(BYTES, transferredBytes);
    }

    /** A command started executing on this thread (its LUN's thread). */
    void executed() {
        counts.increment(EXECUTED);
    }

    public long executedCommands() {
        return counts.get(EXECUTED);
    }

    public long commands() {
        return counts.get(COMMANDS);
    }

    public long bytes() {
        return counts.get(BYTES);
    }

    public long delaySumNanos(Stage stage) {
        return counts.get(DELAY_SUM + stage.ordinal());
    }

    public long delayCount(Stage stage) {
        return counts.get(DELAY_COUNT + stage.ordinal());
    }
}
