package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void medianOddEvenAndNaN() {
        assertEquals(2.0, Stats.median(new double[] {3, 1, 2}));
        assertEquals(2.5, Stats.median(new double[] {4, 1, 3, 2}));
        assertEquals(5.0, Stats.median(new double[] {5}));
        assertEquals(2.0, Stats.median(new double[] {Double.NaN, 3, 1}), "a failed run is left out");
        assertTrue(Double.isNaN(Stats.median(new double[] {})));
        assertTrue(Double.isNaN(Stats.median(new double[] {Double.NaN})));
    }

    @Test
    void ratio() {
        assertEquals(3.0, Stats.ratio(60, 20));
        assertTrue(Double.isNaN(Stats.ratio(1, 0)));
        assertTrue(Double.isNaN(Stats.ratio(Double.NaN, 2)));
    }
}
