package io.numaiscsi.daemon.metrics;

/**
 * The last {@code capacity} samples of one LUN, oldest overwritten first: a time and one value per {@link Series}
 * each, in preallocated arrays, so its memory is fixed however long the daemon runs. Not thread-safe: its owner
 * ({@link StatusHistory}) serialises access.
 */
final class SampleRing {
    /** What each sample holds; a value is NaN when it cannot be known (latency of a second with no command). */
    enum Series {
        READ_IOPS("read_iops"),
        WRITE_IOPS("write_iops"),
        BYTES_PER_SECOND("bytes_per_s"),
        LATENCY_MEAN_US("latency_mean_us"),
        LATENCY_P50_US("latency_p50_us"),
        LATENCY_P99_US("latency_p99_us");

        final String json;

        Series(String json) {
            this.json = json;
        }
    }

    private static final int SERIES = Series.values().length;

    private final long[] times;
    private final double[] values;
    private int next;
    private int size;

    SampleRing(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a sample ring holds at least one sample, not " + capacity);
        }
        times = new long[capacity];
        values = new double[capacity * SERIES];
    }

    /** Adds a sample taken at {@code epochMillis}; {@code sample} holds one value per {@link Series}, in order. */
    void add(long epochMillis, double[] sample) {
        if (sample.length != SERIES) {
            throw new IllegalArgumentException(SERIES + " values per sample, not " + sample.length);
        }
        times[next] = epochMillis;
        System.arraycopy(sample, 0, values, next * SERIES, SERIES);
        next = (next + 1) % times.length;
        size = Math.min(size + 1, times.length);
    }

    int size() {
        return size;
    }

    int capacity() {
        return times.length;
    }

    /** The time of the {@code i}-th sample held, 0 the oldest. */
    long time(int i) {
        return times[slot(i)];
    }

    /** The {@code series} value of the {@code i}-th sample held, 0 the oldest. */
    double value(int i, Series series) {
        return values[slot(i) * SERIES + series.ordinal()];
    }

    private int slot(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("sample " + i + " of " + size);
        }
        return (next - size + i + times.length) % times.length;
    }
}
