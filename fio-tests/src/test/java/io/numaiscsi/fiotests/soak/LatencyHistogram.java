package io.numaiscsi.fiotests.soak;

import java.util.Arrays;

/**
 * A cumulative latency histogram as the daemon exports it ({@code iscsi_lun_command_latency_seconds_bucket}): upper
 * bounds in seconds (the last +Inf) and the count of commands at or below each. Differences of two scrapes give the
 * commands of an interval, sums of differences those of a window; quantiles interpolate within a bucket as
 * Prometheus's {@code histogram_quantile} does.
 */
record LatencyHistogram(double[] bounds, double[] cumulative) {

    static final LatencyHistogram EMPTY = new LatencyHistogram(new double[0], new double[0]);

    double count() {
        return cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
    }

    /**
     * This scrape minus an earlier one of the same counters; after a restart (a counter went down) this one as it is,
     * since the counters started again from zero.
     */
    LatencyHistogram minus(LatencyHistogram earlier) {
        if (earlier == null
                || earlier.cumulative.length != cumulative.length
                || !Arrays.equals(earlier.bounds, bounds)) {
            return this;
        }
        double[] d = new double[cumulative.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = cumulative[i] - earlier.cumulative[i];
            if (d[i] < 0) {
                return this;
            }
        }
        return new LatencyHistogram(bounds, d);
    }

    LatencyHistogram plus(LatencyHistogram other) {
        if (other == null || other.cumulative.length == 0) {
            return this;
        }
        if (cumulative.length == 0) {
            return other;
        }
        double[] s = new double[cumulative.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = cumulative[i] + other.cumulative[i];
        }
        return new LatencyHistogram(bounds, s);
    }

    /** The {@code q} quantile in seconds, NaN without commands; the highest finite bound when it falls in +Inf. */
    double quantile(double q) {
        double total = count();
        if (total <= 0) {
            return Double.NaN;
        }
        double rank = q * total;
        for (int i = 0; i < cumulative.length; i++) {
            if (cumulative[i] >= rank) {
                double lower = i == 0 ? 0 : bounds[i - 1];
                if (Double.isInfinite(bounds[i])) {
                    return lower;
                }
                double below = i == 0 ? 0 : cumulative[i - 1];
                double inBucket = cumulative[i] - below;
                return inBucket <= 0 ? bounds[i] : lower + (bounds[i] - lower) * (rank - below) / inBucket;
            }
        }
        return bounds[bounds.length - 2];
    }
}
