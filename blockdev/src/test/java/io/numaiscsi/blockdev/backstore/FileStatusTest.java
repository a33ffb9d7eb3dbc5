package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileStatusTest {
    @TempDir
    Path dir;

    @Test
    void regularFileModeOwnerLinksSize() throws IOException {
        Path f = Files.write(dir.resolve("f"), new byte[3]);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
        FileStatus s = FileStatus.ofLink(f);
        assertTrue(s.regularFile());
        assertEquals("a regular file", s.kind());
        assertEquals("0640", s.mode());
        assertTrue(s.groupOrOtherReadable());
        assertFalse(s.groupOrOtherWritable());
        assertEquals(ProcessUser.uid(), s.uid());
        assertEquals(1, s.links());
        assertEquals(3, s.size());
    }

    @Test
    void stickyWorldWritableDirectory() throws IOException {
        Path d = Files.createDirectory(dir.resolve("shared"));
        Files.setAttribute(d, "unix:mode", 01777);
        FileStatus s = FileStatus.ofLink(d);
        assertTrue(s.directory());
        assertTrue(s.sticky());
        assertTrue(s.groupOrOtherWritable());
        assertEquals("1777", s.mode());
        assertEquals("a directory", s.kind());
    }

    @Test
    void linkItselfOrItsTarget() throws IOException {
        Path d = Files.createDirectory(dir.resolve("d"));
        Path link = Files.createSymbolicLink(dir.resolve("l"), d);
        assertTrue(FileStatus.ofLink(link).symbolicLink());
        assertEquals("a symbolic link", FileStatus.ofLink(link).kind());
        assertTrue(FileStatus.of(link).directory());
    }

    @Test
    void missingIsNull() throws IOException {
        assertNull(FileStatus.ofLinkIfExists(dir.resolve("nothing")));
    }
}
