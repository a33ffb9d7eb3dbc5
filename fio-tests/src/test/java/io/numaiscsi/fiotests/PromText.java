package io.numaiscsi.fiotests;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The daemon's {@code /metrics} (Prometheus text exposition), fetched and summed by metric name. */
record PromText(String text) {

    private static final Pattern SAMPLE =
            Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? (\\S+)$", Pattern.MULTILINE);

    /**
     * One scrape on a connection of its own, closed after the answer (so no test counts our idle connections), of
     * GET /metrics on {@code port}. A refused connection is retried for up to 30 s: the daemon opens its metrics
     * endpoint just after its portals, and the harness calls it ready when the portal accepts.
     */
    static PromText fetch(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                return fetchOnce(port);
            } catch (ConnectException refused) {
                if (System.nanoTime() > deadline) {
                    throw refused;
                }
                Thread.sleep(50);
            }
        }
    }

    private static PromText fetchOnce(int port) throws IOException, InterruptedException {
        HttpURLConnection c = (HttpURLConnection)
                URI.create("http://127.0.0.1:" + port + "/metrics").toURL().openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(10_000);
        c.setRequestProperty("Connection", "close");
        try {
            if (c.getResponseCode() != 200) {
                throw new IOException("GET /metrics on port " + port + ": HTTP " + c.getResponseCode());
            }
            try (InputStream in = c.getInputStream()) {
                return new PromText(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        } finally {
            c.disconnect();
        }
    }

    /** The sum of every sample of {@code name} (all label sets). */
    double sum(String name) {
        return sum(name, "");
    }

    /** The sum of the samples of {@code name} whose labels contain {@code label} (e.g. {@code node="1"}). */
    double sum(String name, String label) {
        Matcher m = SAMPLE.matcher(text);
        double total = 0;
        while (m.find()) {
            String labels = m.group(3) == null ? "" : m.group(3);
            if (m.group(1).equals(name) && (label.isEmpty() || labels.contains(label))) {
                total += Double.parseDouble(m.group(4));
            }
        }
        return total;
    }

    /** The sum of the samples of {@code name} whose labels contain every one of {@code labels}. */
    double sumAll(String name, String... labels) {
        Matcher m = SAMPLE.matcher(text);
        double total = 0;
        while (m.find()) {
            String found = m.group(3) == null ? "" : m.group(3);
            if (!m.group(1).equals(name)) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= found.contains(l);
            }
            if (all) {
                total += Double.parseDouble(m.group(4));
            }
        }
        return total;
    }

    /**
     * Bytes CPUs touched on a LUN's data path (data_touched_bytes_total) between {@code before} and now, for samples
     * carrying every one of {@code labels}: {local, all}, local meaning the CPU's node is the memory's node.
     */
    double[] touchedSince(PromText before, int nodes, String... labels) {
        double all = sumAll("data_touched_bytes_total", labels) - before.sumAll("data_touched_bytes_total", labels);
        double local = 0;
        for (int n = 0; n < nodes; n++) {
            String[] withNode = Arrays.copyOf(labels, labels.length + 2);
            withNode[labels.length] = "cpu_node=\"" + n + "\"";
            withNode[labels.length + 1] = "mem_node=\"" + n + "\"";
            local += sumAll("data_touched_bytes_total", withNode) - before.sumAll("data_touched_bytes_total", withNode);
        }
        return new double[] {local, all};
    }

    /** Whether any sample of {@code name} is present. */
    boolean has(String name) {
        Matcher m = SAMPLE.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The counters that grew from {@code before} to this scrape, for one metric: this minus before. */
    double delta(PromText before, String name) {
        return sum(name) - before.sum(name);
    }

    /**
     * The sum of {@code metric} once it reads {@code expected} (a gauge that settles as connections close), or its
     * last reading when {@code patience} runs out.
     */
    static double settled(int port, String metric, double expected, Duration patience)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        double value = fetch(port).sum(metric);
        while (value != expected && System.nanoTime() < deadline) {
            Thread.sleep(100);
            value = fetch(port).sum(metric);
        }
        return value;
    }

    String cacheSummary() {
        StringBuilder sb = new StringBuilder();
        for (String n : new String[] {
            "cache_hits_total",
            "cache_misses_total",
            "cache_read_throughs_total",
            "cache_evictions_total",
            "cache_in_place_bytes_total",
            "cache_forwards_total",
            "cache_bypasses_total"
        }) {
            sb.append(String.format(
                    "%-27s node0 %14.0f  node1 %14.0f  all %14.0f%n",
                    n, sum(n, "node=\"0\""), sum(n, "node=\"1\""), sum(n)));
        }
        return sb.toString();
    }
}
