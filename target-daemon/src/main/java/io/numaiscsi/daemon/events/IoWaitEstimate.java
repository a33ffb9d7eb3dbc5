package io.numaiscsi.daemon.events;

/**
 * How long an event thread polls its LUNs' rings for a completion before it hands them to their reapers and blocks,
 * learned from how long its recent waits for I/O were. A device whose mean wait fits in {@code daemon.io-poll} is
 * polled for three times that mean, so that most completions come while the thread is awake, but never longer than
 * {@code daemon.io-poll}. A device whose waits outgrow it (a seeking disk, a network store) gets only the short poll
 * a fast device needs: spinning through its waits would burn a core for the one wake-up each saves.
 *
 * <p>Touched by its event thread only.
 */
final class IoWaitEstimate {
    /** The poll before anything is known, and for devices slower than {@code daemon.io-poll}. */
    static final long SHORT_POLL_NANOS = 200_000;

    /** The mean moves 1/8 of the way to each new wait. */
    private static final int SHIFT = 3;

    private final long maxPollNanos;
    private final long shortPollNanos;
    /** One stall counts as this long at most, so that the mean comes back within a few waits. */
    private final long longestWait;

    private long meanNanos;

    IoWaitEstimate(long maxPollNanos) {
        if (maxPollNanos < 0) {
            throw new IllegalArgumentException("negative poll " + maxPollNanos);
        }
        this.maxPollNanos = maxPollNanos;
        this.shortPollNanos = Math.min(SHORT_POLL_NANOS, maxPollNanos);
        this.longestWait = 2 * Math.max(maxPollNanos, SHORT_POLL_NANOS);
    }

    /** A wait of the thread, from when it ran out of work with I/O in flight until that I/O had all completed. */
    void observe(long waitNanos) {
        long wait = Math.min(Math.max(waitNanos, 0), longestWait);
        meanNanos += (wait - meanNanos) >> SHIFT;
    }

    /** How long the thread polls for its I/O before it blocks. */
    long pollNanos() {
        if (meanNanos > maxPollNanos) {
            return shortPollNanos;
        }
        return Math.min(maxPollNanos, Math.max(3 * meanNanos, shortPollNanos));
    }

    long meanNanos() {
        return meanNanos;
    }
}
