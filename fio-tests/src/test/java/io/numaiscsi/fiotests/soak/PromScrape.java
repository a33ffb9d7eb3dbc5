package io.numaiscsi.fiotests.soak;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of a daemon's {@code /metrics}: its samples with their labels. */
record PromScrape(List<Sample> samples, String text) {

    record Sample(String name, Map<String, String> labels, double value) {
        String label(String key) {
            return labels.getOrDefault(key, "");
        }
    }

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static PromScrape fetch(int port) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET /metrics on port " + port + ": HTTP " + r.statusCode());
        }
        return parse(r.body());
    }

    static PromScrape parse(String text) {
        List<Sample> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            double value;
            try {
                value = Double.parseDouble(m.group(3).replace("+Inf", "Infinity"));
            } catch (NumberFormatException e) {
                continue;
            }
            out.add(new Sample(m.group(1), Map.copyOf(labels), value));
        }
        return new PromScrape(List.copyOf(out), text);
    }

    /** The sum of the samples of {@code name} whose labels {@code filter} accepts; NaN when there is none. */
    double sum(String name, Predicate<Sample> filter) {
        double total = 0;
        boolean any = false;
        for (Sample s : samples) {
            if (s.name().equals(name) && filter.test(s)) {
                total += s.value();
                any = true;
            }
        }
        return any ? total : Double.NaN;
    }

    double sum(String name) {
        return sum(name, s -> true);
    }

    List<Sample> named(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).toList();
    }
}
