package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkloadTest {

    @ParameterizedTest
    @CsvSource({"512,512", "4k,4096", "4K,4096", "128k,131072", "512k,524288", "1m,1048576"})
    void sizes(String text, int bytes) {
        assertEquals(bytes, Workload.parseSize(text));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "rr4k randread 4k 32 1 1   | rr4k-qd32-nj1   | 1",
                "rr4k randread 4k 32 2 1   | rr4k-qd32-nj2   | 2",
                "rr4k randread 4k 32 1 2   | rr4k-qd32-2lun  | 2",
                "rr4k randread 4k 32 2 2   | rr4k-qd32-2lun-nj2 | 4",
                "sr512k  read  512k  8 1 1 | sr512k-qd8-nj1  | 1"
            })
    void idsAndSessions(String line, String id, int sessions) {
        Workload w = Workload.parseLine(line);
        assertEquals(id, w.id());
        assertEquals(sessions, w.sessions());
    }

    @Test
    void goalCellsAreRecognised() {
        assertTrue(Workload.parseLine("x randread 4k 32 1 1").randomRead4k());
        assertFalse(Workload.parseLine("x randwrite 4k 32 1 1").randomRead4k());
        assertTrue(Workload.parseLine("x read 512k 8 2 1").sequentialRead512k());
        assertFalse(Workload.parseLine("x randread 512k 8 2 1").sequentialRead512k());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "rr4k randread 4k 32 1",
                "rr4k randreed 4k 32 1 1",
                "rr4k randread 4k 0 1 1",
                "rr4k randread 4k 32 1 3",
                "rr4k randread 4x 32 1 1"
            })
    void badLinesAreRejected(String line) {
        assertThrows(IllegalArgumentException.class, () -> Workload.parseLine(line));
    }

    @Test
    void matrixSkipsCommentsAndBlankLines() {
        List<Workload> m = Workload.parseMatrix(List.of("# header", "", "rr4k randread 4k 32 1 1  # comment", "  "));
        assertEquals(List.of(new Workload("rr4k", "randread", 4096, 32, 1, 1)), m);
        assertThrows(IllegalArgumentException.class, () -> Workload.parseMatrix(List.of("# nothing")));
    }

    @Test
    void shippedMatrixHasTheIssueCells() throws Exception {
        // the module's directory is the working directory of surefire
        List<Workload> m = Workload.readMatrix(Path.of("bench/matrix.txt"));
        List<String> ids = m.stream().map(Workload::id).toList();
        assertEquals(
                List.of(
                        "rr512-qd32-nj1",
                        "rr512-qd32-nj2",
                        "rr4k-qd32-nj1",
                        "rr4k-qd32-nj2",
                        "rw4k-qd32-nj1",
                        "rw4k-qd32-nj2",
                        "rr128k-qd16-nj1",
                        "rr128k-qd16-nj2",
                        "sr512k-qd8-nj1",
                        "sr512k-qd8-nj2",
                        "rr4k-qd32-2lun"),
                ids);
    }
}
