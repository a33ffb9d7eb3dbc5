package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {

    @ParameterizedTest
    @CsvSource({
        "512, 512",
        "1K, 1024",
        "4k, 4096",
        "64M, 67108864",
        "1G, 1073741824",
        "2T, 2199023255552",
        "8388607T, 9223370937343148032"
    })
    void parses(String text, long bytes) {
        assertEquals(bytes, Sizes.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"12X", "", "G", "1.5G", "-1", "1 G", "1GB", "1KiB", "0x10", "1_000"})
    void rejectsNonSizes(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sizes.parse(text));
        assertEquals("\"" + text + "\" is not a size (use bytes or a K/M/G/T suffix)", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
        "8388608T, '\"8388608T\" is too large'",
        "99999999999999999999, '\"99999999999999999999\" is not a size" + " (use bytes or a K/M/G/T suffix)'",
        "0, size must be greater than 0",
        "0G, size must be greater than 0"
    })
    void rejectsZeroAndOverflow(String text, String message) {
        assertEquals(
                message,
                assertThrows(IllegalArgumentException.class, () -> Sizes.parse(text))
                        .getMessage());
    }
}
