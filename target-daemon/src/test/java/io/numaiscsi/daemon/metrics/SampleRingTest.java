package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaiscsi.daemon.metrics.SampleRing.Series;
import org.junit.jupiter.api.Test;

class SampleRingTest {
    private static double[] sample(double readIops) {
        double[] s = new double[Series.values().length];
        s[Series.READ_IOPS.ordinal()] = readIops;
        s[Series.LATENCY_P99_US.ordinal()] = readIops * 10;
        return s;
    }

    @Test
    void holdsSamplesOldestFirstUntilFull() {
        SampleRing ring = new SampleRing(4);
        assertEquals(0, ring.size());
        ring.add(1000, sample(1));
        ring.add(2000, sample(2));
        assertEquals(2, ring.size());
        assertEquals(1000, ring.time(0));
        assertEquals(2000, ring.time(1));
        assertEquals(1, ring.value(0, Series.READ_IOPS));
        assertEquals(20, ring.value(1, Series.LATENCY_P99_US));
        assertThrows(IndexOutOfBoundsException.class, () -> ring.time(2));
    }

    @Test
    void aFullRingDropsTheOldestAndKeepsItsSize() {
        SampleRing ring = new SampleRing(3);
        for (int i = 1; i <= 7; i++) {
            ring.add(i * 1000L, sample(i));
        }
        assertEquals(3, ring.size());
        for (int i = 0; i < 3; i++) {
            assertEquals((5 + i) * 1000L, ring.time(i), "sample " + i);
            assertEquals(5 + i, ring.value(i, Series.READ_IOPS), "sample " + i);
            assertEquals((5 + i) * 10, ring.value(i, Series.LATENCY_P99_US), "sample " + i);
        }
    }

    @Test
    void aSampleIsCopiedNotKept() {
        SampleRing ring = new SampleRing(2);
        double[] s = sample(5);
        ring.add(1, s);
        s[Series.READ_IOPS.ordinal()] = 99;
        assertEquals(5, ring.value(0, Series.READ_IOPS));
    }

    @Test
    void badShapesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SampleRing(0));
        assertThrows(IllegalArgumentException.class, () -> new SampleRing(2).add(1, new double[2]));
    }
}
