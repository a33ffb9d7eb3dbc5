package io.numaiscsi.daemon.metrics;

import io.numaiscsi.scsi.CommandCounters;
import io.numaiscsi.scsi.CommandCounters.Op;

/**
 * Turns a LUN's cumulative {@link CommandCounters} into rates over the time since the last reading: READs and WRITEs
 * per second, bytes per second, and the mean, median and 99th percentile latency of the READs and WRITEs completed in
 * between (from the histogram's buckets, interpolated within a bucket as Prometheus' {@code histogram_quantile} does).
 * The first reading only sets the baseline.
 */
final class LunRates {
    private static final double[] BOUNDS_US = boundsMicros();

    private final CommandCounters counters;
    private final long[] commands = new long[2];
    private long bytes;
    private long latencySumNanos;
    private final long[] buckets = new long[BOUNDS_US.length + 1];
    private final long[] bucketDelta = new long[buckets.length];
    private long lastNanos;
    private boolean primed;

    LunRates(CommandCounters counters) {
        this.counters = counters;
    }

    /**
     * Reads the counters at {@code nanos} (a monotonic clock) and fills {@code sample} (one value per
     * {@link SampleRing.Series}) with the rates since the last reading; false for the first reading or no time passed.
     */
    boolean read(long nanos, double[] sample) {
        long[] readBuckets = counters.latencyBuckets(Op.READ);
        long[] writeBuckets = counters.latencyBuckets(Op.WRITE);
        long reads = counters.commands(Op.READ);
        long writes = counters.commands(Op.WRITE);
        long nowBytes = counters.bytes(Op.READ) + counters.bytes(Op.WRITE);
        long nowSum = counters.latencySumNanos(Op.READ) + counters.latencySumNanos(Op.WRITE);
        long completed = 0;
        for (int i = 0; i < buckets.length; i++) {
            long now = readBuckets[i] + writeBuckets[i];
            bucketDelta[i] = Math.max(0, now - buckets[i]);
            completed += bucketDelta[i];
            buckets[i] = now;
        }
        double seconds = (nanos - lastNanos) / 1e9;
        boolean rated = primed && seconds > 0;
        if (rated) {
            sample[SampleRing.Series.READ_IOPS.ordinal()] = (reads - commands[0]) / seconds;
            sample[SampleRing.Series.WRITE_IOPS.ordinal()] = (writes - commands[1]) / seconds;
            sample[SampleRing.Series.BYTES_PER_SECOND.ordinal()] = (nowBytes - bytes) / seconds;
            sample[SampleRing.Series.LATENCY_MEAN_US.ordinal()] =
                    completed == 0 ? Double.NaN : (nowSum - latencySumNanos) / 1e3 / completed;
            sample[SampleRing.Series.LATENCY_P50_US.ordinal()] = quantile(0.50, bucketDelta, completed);
            sample[SampleRing.Series.LATENCY_P99_US.ordinal()] = quantile(0.99, bucketDelta, completed);
        }
        commands[0] = reads;
        commands[1] = writes;
        bytes = nowBytes;
        latencySumNanos = nowSum;
        lastNanos = nanos;
        primed = true;
        return rated;
    }

    /**
     * The {@code q} quantile in microseconds of {@code count} commands spread over {@code perBucket} (not cumulative),
     * linear within its bucket; the slowest bucket has no upper bound, so a quantile there is its lower bound.
     */
    static double quantile(double q, long[] perBucket, long count) {
        if (count == 0) {
            return Double.NaN;
        }
        double rank = q * count;
        long below = 0;
        for (int i = 0; i < perBucket.length; i++) {
            long in = perBucket[i];
            if (in > 0 && below + in >= rank) {
                double lower = i == 0 ? 0 : BOUNDS_US[i - 1];
                if (i == BOUNDS_US.length) {
                    return lower;
                }
                return lower + (BOUNDS_US[i] - lower) * (rank - below) / in;
            }
            below += in;
        }
        return BOUNDS_US[BOUNDS_US.length - 1];
    }

    private static double[] boundsMicros() {
        double[] seconds = CommandCounters.latencyBoundsSeconds();
        double[] us = new double[seconds.length];
        for (int i = 0; i < us.length; i++) {
            us[i] = seconds[i] * 1e6;
        }
        return us;
    }
}
