package io.numaiscsi.numa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CpuListTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0|0",
                "0-3|0,1,2,3",
                "0-3,8-11|0,1,2,3,8,9,10,11",
                "5,1,3|1,3,5",
                "2-2|2",
                "' 0-1\n'|0,1",
                "0-1,1-2|0,1,2",
            })
    void parses(String text, String cpus) {
        String got = CpuList.parse(text).stream().mapToObj(Integer::toString).collect(Collectors.joining(","));
        assertEquals(cpus, got);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\n"})
    void emptyMeansNoCpus(String text) {
        assertEquals(0, CpuList.parse(text).cardinality());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "3-1", "0,,1", "0-", "-1", "1-x"})
    void rejectsMalformed(String text) {
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse(text));
    }
}
