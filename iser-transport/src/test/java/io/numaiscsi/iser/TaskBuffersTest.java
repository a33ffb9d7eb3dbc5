package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TaskBuffersTest {

    /** Write buffer advertised after 8 KiB of immediate data of a 64 KiB write. */
    @ParameterizedTest(name = "base {0}: offset {1} length {2} -> {3}")
    @CsvSource({
        // absolute virtual address (Linux iser: ZBVA not supported)
        "140737488355328, 8192, 57344, 140737488355328",
        "140737488355328, 40960, 4096, 140737488388096",
        "140737488355328, 4096, 4096, -1", // inside the immediate part: not in the advertised buffer
        "140737488355328, 61440, 8192, -1", // beyond EDTL
        // zero-based tagged offsets
        "0, 8192, 57344, 0",
        "0, 16384, 1024, 8192",
    })
    void dataOutAddresses(long base, int offset, int length, long expected) {
        TaskBuffers t = new TaskBuffers();
        t.set(1, true, 0x42, base, false, 0, 0, 65536);
        assertEquals(expected, t.dataOutAddress(offset, length, 8192));
    }

    @ParameterizedTest(name = "read valid {0}, length {1} -> {2}")
    @CsvSource({
        "true, 65536, 4096",
        "true, 100, 4096",
        "true, 65537, -1",
        "false, 100, -1",
    })
    void dataInAddresses(boolean readValid, int length, long expected) {
        TaskBuffers t = new TaskBuffers();
        t.set(1, false, 0, 0, readValid, 0x43, 4096, 65536);
        assertEquals(expected, t.dataInAddress(length));
    }

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void noWriteStagNoDataOut(boolean unused) {
        TaskBuffers t = new TaskBuffers();
        t.set(1, false, 0x42, 0, unused, 0, 0, 65536);
        assertEquals(-1, t.dataOutAddress(0, 512, 0));
    }
}
