package io.numaiscsi.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The {@code iscsi:} section: login-negotiation offers (RFC 7143 section 13 ranges) and keep-alive. */
final class IscsiSection {

    static final String KEY = "iscsi";
    static final List<String> KEYS = List.of(
            "max-recv-data-segment-length",
            "max-burst-length",
            "first-burst-length",
            "max-outstanding-r2t",
            "immediate-data",
            "initial-r2t",
            "queue-depth",
            "header-digest",
            "data-digest",
            "default-time2wait",
            "default-time2retain",
            "nop-in-interval",
            "nop-in-timeout");

    /** RFC 7143 numeric range of the data-length keys: 512 to 2^24-1. */
    static final int MIN_LENGTH = 512;

    static final int MAX_LENGTH = 16_777_215;
    static final int DEFAULT_FIRST_BURST = 262_144;
    static final List<String> DEFAULT_DIGESTS = List.of("None", "CRC32C");
    static final Duration MAX_DURATION = Duration.ofHours(1);

    private IscsiSection() {}

    static IscsiSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        int maxRecv = f.integer("max-recv-data-segment-length", MIN_LENGTH, MAX_LENGTH, 262_144);
        int maxBurst = f.integer("max-burst-length", MIN_LENGTH, MAX_LENGTH, 1_048_576);
        int firstBurst = f.integer("first-burst-length", MIN_LENGTH, MAX_LENGTH, DEFAULT_FIRST_BURST);
        if (firstBurst > maxBurst) {
            Cursor first = f.optional("first-burst-length");
            if (first != null) {
                throw first.error(firstBurst + " is larger than max-burst-length " + maxBurst);
            }
            throw f.optional("max-burst-length")
                    .error(maxBurst + " is smaller than the default first-burst-length " + firstBurst
                            + " (set first-burst-length too)");
        }
        int maxR2T = f.integer("max-outstanding-r2t", 1, 65_535, 4);
        boolean immediateData = f.bool("immediate-data", true);
        boolean initialR2T = f.bool("initial-r2t", false);
        int queueDepth = f.integer("queue-depth", 1, 4096, 128);
        List<String> headerDigests = digests(f, "header-digest");
        List<String> dataDigests = digests(f, "data-digest");
        int time2Wait = f.integer("default-time2wait", 0, 3600, 2);
        int time2Retain = f.integer("default-time2retain", 0, 3600, 0);
        Cursor c = f.optional("nop-in-interval");
        Duration nopInterval =
                c == null ? Duration.ofSeconds(5) : c.duration(Duration.ofMillis(100), MAX_DURATION, true);
        c = f.optional("nop-in-timeout");
        Duration nopTimeout =
                c == null ? Duration.ofSeconds(30) : c.duration(Duration.ofSeconds(1), MAX_DURATION, false);
        return new IscsiSettings(
                maxRecv,
                maxBurst,
                firstBurst,
                maxR2T,
                immediateData,
                initialR2T,
                queueDepth,
                headerDigests,
                dataDigests,
                time2Wait,
                time2Retain,
                nopInterval,
                nopTimeout);
    }

    /** A digest preference list; spelling is normalized to the RFC's "CRC32C" and "None". */
    private static List<String> digests(Fields f, String key) throws ConfigException {
        Cursor c = f.optional(key);
        if (c == null) {
            return DEFAULT_DIGESTS;
        }
        List<String> out = new ArrayList<>(2);
        for (Cursor item : c.nonEmptyList("needs at least one of CRC32C, None")) {
            String t = item.text();
            String digest = switch (t.toUpperCase(Locale.ROOT)) {
                case "CRC32C" -> "CRC32C";
                case "NONE" -> "None";
                default -> throw item.error("\"" + t + "\" is not a digest (use CRC32C or None)");
            };
            if (out.contains(digest)) {
                throw item.error("duplicate digest " + digest);
            }
            out.add(digest);
        }
        return out;
    }
}
