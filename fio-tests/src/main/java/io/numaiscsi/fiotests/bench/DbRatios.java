package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ratios to a baseline target of a database benchmark's results.tsv (run-wiredtiger-bench.sh, run-pgbench-bench.sh):
 * one row per boot with a {@code variant} column, an optional group column (WiredTiger's {@code mix}) and metric
 * columns. Per variant, group and metric the median over the repeats, divided by the baseline's (a metric where higher
 * is better) or the baseline's divided by it (lower is better, e.g. a p99 latency), so that above 1 always means better
 * than the baseline. A missing or zero median (mix C has no updates) gives NaN: no bar.
 */
record DbRatios(List<String> categories, Map<String, List<Double>> ratiosByVariant) {

    /** A column of results.tsv, whether higher is better, and its name on the chart. */
    record Metric(String column, boolean higherIsBetter, String label) {
        /** {@code column:up:label} or {@code column:down:label}. */
        static Metric parse(String spec) {
            String[] p = spec.split(":", 3);
            if (p.length != 3 || p[0].isEmpty() || p[2].isEmpty() || !(p[1].equals("up") || p[1].equals("down"))) {
                throw new IllegalArgumentException("metric must be COLUMN:up|down:LABEL, got '" + spec + "'");
            }
            return new Metric(p[0], p[1].equals("up"), p[2]);
        }
    }

    /** Rows of a tab-separated file with a header line, as column name to value. */
    static List<Map<String, String>> readTsv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            throw new IllegalArgumentException(file + ": empty, no header line");
        }
        String[] header = lines.get(0).split("\t", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            String[] cells = lines.get(i).split("\t", -1);
            if (cells.length != header.length) {
                throw new IllegalArgumentException(
                        file + ": line " + (i + 1) + " has " + cells.length + " fields, the header " + header.length);
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < header.length; c++) {
                row.put(header[c], cells[c]);
            }
            rows.add(row);
        }
        return rows;
    }

    /**
     * Each variant's ratios to the baseline, per metric and category.
     *
     * @param group the column whose values split each metric into categories ("mix"), or null for one per metric
     * @return categories "GROUP LABEL" (or "LABEL") in the rows' order, and per variant but the baseline, in the rows'
     *         order, one ratio per category
     */
    static DbRatios compute(List<Map<String, String>> rows, String baseline, String group, List<Metric> metrics) {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no results");
        }
        List<String> needed = new ArrayList<>(List.of("variant"));
        if (group != null) {
            needed.add(group);
        }
        metrics.forEach(m -> needed.add(m.column()));
        for (String column : needed) {
            if (!rows.get(0).containsKey(column)) {
                throw new IllegalArgumentException("results have no column '" + column + "' (columns: "
                        + rows.get(0).keySet() + ")");
            }
        }
        Set<String> variants = new LinkedHashSet<>();
        Set<String> groups = new LinkedHashSet<>();
        for (Map<String, String> r : rows) {
            variants.add(r.get("variant"));
            groups.add(group == null ? "" : r.get(group));
        }
        if (!variants.contains(baseline)) {
            throw new IllegalArgumentException("no rows of the baseline " + baseline + " (variants: " + variants + ")");
        }
        List<String> categories = new ArrayList<>();
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        for (String v : variants) {
            if (!v.equals(baseline)) {
                ratios.put(v, new ArrayList<>());
            }
        }
        for (String g : groups) {
            for (Metric m : metrics) {
                categories.add(g.isEmpty() ? m.label() : g + " " + m.label());
                double base = median(rows, baseline, group, g, m.column());
                for (Map.Entry<String, List<Double>> e : ratios.entrySet()) {
                    double value = median(rows, e.getKey(), group, g, m.column());
                    e.getValue().add(m.higherIsBetter() ? Stats.ratio(value, base) : Stats.ratio(base, value));
                }
            }
        }
        return new DbRatios(categories, ratios);
    }

    private static double median(
            List<Map<String, String>> rows, String variant, String group, String g, String column) {
        double[] values = rows.stream()
                .filter(r -> r.get("variant").equals(variant)
                        && (group == null || r.get(group).equals(g)))
                .mapToDouble(r -> parse(r.get(column)))
                .toArray();
        double m = Stats.median(values);
        return m == 0 ? Double.NaN : m;
    }

    private static double parse(String cell) {
        try {
            return Double.parseDouble(cell);
        } catch (NumberFormatException e) {
            return Double.NaN; // "-" or empty: a value the run did not produce
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(String.join("\t", categories));
        ratiosByVariant.forEach((v, r) -> b.append('\n').append(v).append(": ").append(Arrays.toString(r.toArray())));
        return b.toString();
    }
}
