package io.numaiscsi.config;

import java.time.Duration;

/** Durations written as a number with a unit: {@code 50us}, {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}; {@code 0} alone. */
final class Durations {

    private Durations() {}

    /** @throws IllegalArgumentException with the administrator-facing problem */
    static Duration parse(String text) {
        String t = text.trim();
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        int unitStart = 0;
        while (unitStart < t.length() && t.charAt(unitStart) >= '0' && t.charAt(unitStart) <= '9') {
            unitStart++;
        }
        String digits = t.substring(0, unitStart);
        String unit = t.substring(unitStart);
        if (digits.isEmpty() || digits.length() > 9) {
            throw bad(text);
        }
        long n = Long.parseLong(digits);
        return switch (unit) {
            case "us" -> Duration.ofNanos(n * 1000);
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> throw bad(text);
        };
    }

    private static IllegalArgumentException bad(String text) {
        return new IllegalArgumentException(
                "\"" + text + "\" is not a duration (use a number with us, ms, s, m or h, e.g. 5s; 0 disables)");
    }

    static String format(Duration d) {
        if (d.toNanos() % 1_000_000 != 0) {
            return d.toNanos() / 1000 + "us";
        }
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms != 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms != 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
