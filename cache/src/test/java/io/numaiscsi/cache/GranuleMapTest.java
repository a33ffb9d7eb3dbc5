package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class GranuleMapTest {
    private final GranuleMap map = new GranuleMap(2, 128);

    @Test
    void findsTheRangeOfGranulesNotValid() {
        map.mark(1, 0, 3);
        map.mark(1, 70, 128);
        assertEquals(3, map.firstUnmarked(1, 0, 128));
        assertEquals(70, map.unmarkedEnd(1, 0, 128));
        assertEquals(0, map.firstUnmarked(0, 0, 128), "the other slot is untouched");
        assertEquals(128, map.unmarkedEnd(0, 0, 128));
        map.mark(1, 3, 70);
        assertEquals(128, map.firstUnmarked(1, 0, 128), "all valid");
        assertEquals(0, map.unmarkedEnd(1, 0, 128));
    }

    @Test
    void findsValidRunsAndCopiesOneSlotsGranulesToAnother() {
        map.mark(0, 5, 9);
        map.mark(0, 100, 101);
        assertEquals(5, map.firstMarked(0, 0, 128));
        assertEquals(9, map.firstUnmarked(0, 5, 128), "the run ends");
        assertEquals(100, map.firstMarked(0, 9, 128));
        assertEquals(128, map.firstMarked(0, 101, 128), "no more valid granules");
        map.mark(1, 0, 128);
        map.copy(0, 1);
        assertEquals(5, map.firstMarked(1, 0, 128), "the copy has exactly the source's granules");
        assertEquals(9, map.firstUnmarked(1, 5, 128));
        assertEquals(100, map.firstMarked(1, 9, 128));
        assertEquals(101, map.firstUnmarked(1, 100, 128));
    }
}
