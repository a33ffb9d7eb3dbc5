package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CeilingTest {

    @Test
    void iperf3ReceivedBitsPerSecond() throws Exception {
        String json = """
                {"start":{},"intervals":[],"end":{"sum_sent":{"bits_per_second":16000000000.0},
                 "sum_received":{"bytes":9750000000,"seconds":5.0,"bits_per_second":15600000000.0}}}""";
        assertEquals(1.95e9, Ceiling.parseIperf3(new ObjectMapper().readTree(json)), 1);
    }

    @Test
    void iperf3ErrorIsReported() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> Ceiling.parseIperf3(
                        new ObjectMapper().readTree("{\"start\":{},\"error\":\"unable to connect\"}")));
        assertTrue(e.getMessage().contains("unable to connect"));
    }

    @Test
    void ceilingForSessions() {
        Ceiling c = new Ceiling(Map.of(1, 2.0e9, 2, 2.5e9));
        assertEquals(2.0e9, c.forSessions(1));
        assertEquals(2.5e9, c.forSessions(2));
        assertEquals(2.5e9, c.forSessions(4), "more sessions than measured: the most streams measured");
        assertEquals(2.0e9, new Ceiling(Map.of(2, 2.0e9)).forSessions(1), "fewer: the smallest measured");
        assertEquals(
                2.4e9,
                new Ceiling(Map.of(1, 2.4e9, 2, 2.0e9)).forSessions(2),
                "a noisier 2-stream run does not lower it");
        assertTrue(Double.isNaN(Ceiling.NONE.forSessions(1)));
    }
}
