package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PromTextTest {

    private static final PromText SCRAPE = new PromText("""
            # HELP cache_hits_total cache block hits
            # TYPE cache_hits_total counter
            cache_hits_total{lun="0",node="0",target="iqn.x:disk0",} 120.0
            cache_hits_total{lun="0",node="1",target="iqn.x:disk0",} 30.0
            cache_local_bytes_total{lun="0",node="0",target="iqn.x:disk0",} 9.0E8
            cache_local_bytes_total{lun="0",node="1",target="iqn.x:disk0",} 1.0E8
            cache_remote_bytes_total{lun="0",node="0",target="iqn.x:disk0",} 2.5E7
            cache_remote_bytes_total{lun="0",node="1",target="iqn.x:disk0",} 2.5E7
            cache_hits_total_extra 5.0
            iscsi_sessions 1.0
            """);

    @Test
    void sumsEveryLabelSetOfOneNameOnly() {
        assertEquals(150.0, SCRAPE.sum("cache_hits_total"));
        assertEquals(1.0, SCRAPE.sum("iscsi_sessions"));
        assertEquals(0.0, SCRAPE.sum("cache_misses_total"));
    }

    @Test
    void filtersByLabel() {
        assertEquals(30.0, SCRAPE.sum("cache_hits_total", "node=\"1\""));
        assertEquals(9.0E8, SCRAPE.sum("cache_local_bytes_total", "node=\"0\""));
    }

    @Test
    void localShareIsLocalOverLocalPlusRemote() {
        assertEquals(1.0E9 / 1.05E9, SCRAPE.localShare(), 1e-12);
        assertTrue(Double.isNaN(new PromText("").localShare()));
    }

    @Test
    void deltaAndPresence() {
        PromText before = new PromText("cache_hits_total{node=\"0\",} 100.0\n");
        assertEquals(50.0, SCRAPE.delta(before, "cache_hits_total"));
        assertTrue(SCRAPE.has("cache_remote_bytes_total"));
        assertFalse(SCRAPE.has("cache_forwards_total"));
    }
}
