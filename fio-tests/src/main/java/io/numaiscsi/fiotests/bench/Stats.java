package io.numaiscsi.fiotests.bench;

import java.util.Arrays;

/** Order statistics over repeats; NaN (a failed run) is left out. */
final class Stats {
    private Stats() {}

    static double median(double[] values) {
        double[] v =
                Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** a / b, NaN when either is missing or b is 0. */
    static double ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? Double.NaN : a / b;
    }
}
