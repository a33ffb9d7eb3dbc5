package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.daemon.metrics.SampleRing.Series;
import io.numaiscsi.scsi.CommandCounters;
import org.junit.jupiter.api.Test;

class LunRatesTest {
    private static final long SECOND = 1_000_000_000L;
    private final UnitUnderLoad lun = new UnitUnderLoad("iqn.2024-01.io.numaiscsi:rates", 0);
    private final LunRates rates = new LunRates(lun.unit().counters());
    private final double[] sample = new double[Series.values().length];

    @Test
    void theFirstReadingIsTheBaseline() {
        lun.read(10, 80_000);
        assertFalse(rates.read(0, sample));
        assertTrue(rates.read(SECOND, sample));
        assertEquals(0, sample[Series.READ_IOPS.ordinal()], "the reads before the baseline are not a rate");
        assertTrue(Double.isNaN(sample[Series.LATENCY_P50_US.ordinal()]), "no command: no latency");
    }

    @Test
    void ratesAreTheChangeOverTheTimeBetweenReadings() {
        rates.read(0, sample);
        lun.read(30, 80_000); // 50..100 us
        lun.write(10, 400_000); // 300..500 us
        assertTrue(rates.read(2 * SECOND, sample));
        assertEquals(15, sample[Series.READ_IOPS.ordinal()]);
        assertEquals(5, sample[Series.WRITE_IOPS.ordinal()]);
        assertEquals(40 * 512 / 2.0, sample[Series.BYTES_PER_SECOND.ordinal()]);
        assertEquals((30 * 80 + 10 * 400) / 40.0, sample[Series.LATENCY_MEAN_US.ordinal()], 1e-9);
        // rank 20 of 40 falls in 50..100 us, 20 of its 30: linear within the bucket
        assertEquals(50 + 50 * 20 / 30.0, sample[Series.LATENCY_P50_US.ordinal()], 1e-9);
        // rank 39.6 falls in 300..500 us, 9.6 of its 10
        assertEquals(300 + 200 * 9.6 / 10, sample[Series.LATENCY_P99_US.ordinal()], 1e-9);

        lun.read(5, 80_000);
        assertTrue(rates.read(3 * SECOND, sample));
        assertEquals(5, sample[Series.READ_IOPS.ordinal()]);
        assertEquals(0, sample[Series.WRITE_IOPS.ordinal()]);
        assertEquals(80, sample[Series.LATENCY_MEAN_US.ordinal()], 1e-9, "only the commands of this interval");
    }

    @Test
    void aQuantileInTheUnboundedBucketIsItsLowerBound() {
        long[] buckets = new long[CommandCounters.latencyBoundsSeconds().length + 1];
        buckets[buckets.length - 1] = 4;
        assertEquals(1_000_000, LunRates.quantile(0.99, buckets, 4), 1e-9);
        assertTrue(Double.isNaN(LunRates.quantile(0.5, new long[buckets.length], 0)));
    }
}
