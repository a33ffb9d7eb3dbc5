package io.numaiscsi.fiotests.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.TreeMap;

/** The loopback TCP ceiling measured by iperf3 in the same run, in bytes per second, by number of parallel streams. */
record Ceiling(Map<Integer, Double> bytesPerSecondByStreams) {

    Ceiling {
        bytesPerSecondByStreams = new TreeMap<>(bytesPerSecondByStreams);
    }

    static final Ceiling NONE = new Ceiling(Map.of());

    /** Received bytes per second from {@code iperf3 -J} client output ({@code end.sum_received}). */
    static double parseIperf3(JsonNode root) {
        JsonNode bps = root.path("end").path("sum_received").path("bits_per_second");
        if (!bps.isNumber()) {
            String err = root.path("error").asText("");
            throw new IllegalArgumentException(
                    "iperf3 JSON has no end.sum_received.bits_per_second" + (err.isEmpty() ? "" : ": " + err));
        }
        return bps.asDouble() / 8.0;
    }

    /**
     * The ceiling for this many sessions: the best of the measurements with at most that many streams
     * (n connections can do at least what fewer did), else the one with the fewest streams; NaN if none.
     */
    double forSessions(int sessions) {
        TreeMap<Integer, Double> m = (TreeMap<Integer, Double>) bytesPerSecondByStreams;
        if (m.isEmpty()) {
            return Double.NaN;
        }
        Map<Integer, Double> upTo = m.headMap(sessions, true);
        return upTo.isEmpty()
                ? m.firstEntry().getValue()
                : upTo.values().stream().mapToDouble(Double::doubleValue).max().getAsDouble();
    }
}
