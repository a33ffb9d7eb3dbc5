package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeySuggesterTest {

    @ParameterizedTest
    @CsvSource(
            nullValues = "-",
            value = {
                "io-thread, io-threads",
                "io_threads, io-threads",
                "ioThreads, io-threads",
                "IO-THREADS, io-threads",
                "first-burst, first-burst-length",
                "max-burst-lenght, max-burst-length",
                "max, -",
                "colour, -",
                "burst-length, -",
            })
    void suggestsOnlyPlausibleTypos(String typed, String expected) {
        List<String> known = List.of("data-dir", "io-threads", "max-burst-length", "first-burst-length");
        assertEquals(expected, KeySuggester.suggest(typed, known));
    }

    @ParameterizedTest
    @CsvSource({"kitten, sitting, 3", "'', abc, 3", "same, same, 0", "ab, ba, 2"})
    void editDistance(String a, String b, int d) {
        assertEquals(d, KeySuggester.distance(a, b));
    }
}
