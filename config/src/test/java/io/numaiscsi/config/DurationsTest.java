package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @ParameterizedTest
    @CsvSource({"0, 0", "0s, 0", "500ms, 500", "5s, 5000", "2m, 120000", "1h, 3600000"})
    void parses(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), Durations.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"5", "5 s", "5S", "1.5s", "s", "", "-1s", "5d"})
    void rejects(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
        assertEquals(
                "\"" + text + "\" is not a duration (use a number with us, ms, s, m or h, e.g. 5s; 0 disables)",
                e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"0, 0s", "100, 100ms", "5000, 5s", "120000, 2m", "3600000, 1h", "1500, 1500ms"})
    void formats(long millis, String text) {
        assertEquals(text, Durations.format(Duration.ofMillis(millis)));
    }

    @Test
    void microsecondsParseAndFormat() {
        assertEquals(Duration.ofNanos(50_000), Durations.parse("50us"));
        assertEquals("50us", Durations.format(Duration.ofNanos(50_000)));
        assertEquals("1500us", Durations.format(Duration.ofNanos(1_500_000)));
        assertEquals("2ms", Durations.format(Duration.ofNanos(2_000_000)));
    }
}
