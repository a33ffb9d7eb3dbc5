package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessUserTest {
    @TempDir
    Path dir;

    @Test
    void ownsTheFilesThisProcessCreates() throws IOException {
        Path f = Files.createFile(dir.resolve("mine"));
        assertEquals(((Integer) Files.getAttribute(f, "unix:uid")).longValue(), ProcessUser.uid());
        assertFalse(ProcessUser.name().isEmpty());
    }
}
