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
            data_touched_bytes_total{cpu_node="0",kind="copy",lun="0",mem_node="0",target="iqn.x:disk0",} 9.0E8
            data_touched_bytes_total{cpu_node="1",kind="copy",lun="0",mem_node="1",target="iqn.x:disk0",} 1.0E8
            data_touched_bytes_total{cpu_node="0",kind="socket_send",lun="0",mem_node="1",target="iqn.x:disk0",} 2.5E7
            data_touched_bytes_total{cpu_node="unknown",kind="backing",lun="0",mem_node="0",target="iqn.x:disk0",} 2.5E7
            data_touched_bytes_total{cpu_node="0",kind="copy",lun="0",mem_node="0",target="iqn.x:other",} 7.0E8
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
        assertEquals(1.6E9, SCRAPE.sum("data_touched_bytes_total", "cpu_node=\"0\",kind=\"copy\""));
    }

    @Test
    void touchedSinceCountsSameNodeAsLocalAndEverythingElseInTheTotal() {
        double[] t = SCRAPE.touchedSince(new PromText(""), 2, "target=\"iqn.x:disk0\"");
        assertEquals(1.0E9, t[0]);
        assertEquals(1.05E9, t[1]);
        PromText before = new PromText("data_touched_bytes_total{cpu_node=\"0\",kind=\"copy\",lun=\"0\",mem_node=\"0\","
                + "target=\"iqn.x:disk0\",} 4.0E8\n");
        assertEquals(6.0E8, SCRAPE.touchedSince(before, 2, "target=\"iqn.x:disk0\"")[0]);
    }

    @Test
    void deltaAndPresence() {
        PromText before = new PromText("cache_hits_total{node=\"0\",} 100.0\n");
        assertEquals(50.0, SCRAPE.delta(before, "cache_hits_total"));
        assertTrue(SCRAPE.has("data_touched_bytes_total"));
        assertFalse(SCRAPE.has("cache_forwards_total"));
    }
}
