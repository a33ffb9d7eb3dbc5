package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class GhostTableTest {
    private final GhostTable ghosts = new GhostTable(1024, 8);

    @Test
    void countsReadsThroughInARowOfOverlappingPieces() {
        assertEquals(0, ghosts.reads(5, 2, 3));
        ghosts.remember(5, 2, 3);
        assertEquals(1, ghosts.reads(5, 2, 3));
        assertEquals(1, ghosts.reads(5, 0, 4), "overlapping");
        assertEquals(0, ghosts.reads(5, 3, 4), "another granule of the block is no reuse");
        assertEquals(0, ghosts.reads(6, 2, 3));
        ghosts.remember(5, 2, 3);
        assertEquals(2, ghosts.reads(5, 2, 3));
        for (int i = 0; i < 5; i++) {
            ghosts.remember(5, 2, 3);
        }
        assertEquals(4, ghosts.reads(5, 2, 3), "saturates");
    }

    @Test
    void aPieceBackLaterThanTheWindowStartsAgain() {
        ghosts.remember(5, 2, 3);
        ghosts.remember(5, 2, 3);
        for (long b = 100; b < 109; b++) {
            ghosts.remember(b * 7919, 0, 1);
        }
        assertEquals(0, ghosts.reads(5, 2, 3));
        ghosts.remember(5, 2, 3);
        assertEquals(1, ghosts.reads(5, 2, 3));
    }

    @Test
    void aWantedPieceCountsAsHot() {
        ghosts.wanted(9, 0, 128);
        assertEquals(4, ghosts.reads(9, 10, 11));
    }
}
