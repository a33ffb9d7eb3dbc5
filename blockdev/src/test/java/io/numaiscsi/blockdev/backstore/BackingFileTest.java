package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Symbolic links, other file types, owners, hard links and modes of a LUN's backing file. */
class BackingFileTest {
    private static final long SIZE = 1 << 20;

    @TempDir
    Path dir;

    private static long me() {
        return ProcessUser.uid();
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static Path fileOf(Path p, long size) throws IOException {
        Files.write(p, new byte[(int) size]);
        return p;
    }

    @Test
    void createsAMissingFile0600SparseOfTheSize() throws IOException {
        Path p = dir.resolve("lun0.img");
        BackingFile f = BackingFile.open(p, SIZE, me());
        try {
            assertTrue(f.created());
            assertNull(f.warning());
            assertEquals("rw-------", mode(p));
            assertEquals(SIZE, Files.size(p));
            assertEquals(
                    Files.readAttributes(p, "unix:ino").get("ino"),
                    Files.readAttributes(f.handle(), "unix:ino").get("ino"),
                    "the handle is the file");
        } finally {
            f.close();
        }
    }

    @Test
    void opensAnExistingFileAsItIs() throws IOException {
        Path p = fileOf(dir.resolve("lun0.img"), SIZE);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        BackingFile f = BackingFile.open(p, SIZE, me());
        f.close();
        assertFalse(f.created());
        assertNull(f.warning());
        assertEquals("rw-------", mode(p), "an existing file keeps its mode");
    }

    @Test
    void refusesASymbolicLinkAndLeavesItsTargetAlone() throws IOException {
        Path victim = dir.resolve("victim");
        Path link = Files.createSymbolicLink(dir.resolve("lun0.img"), victim);
        UnsafeFileException e = assertThrows(UnsafeFileException.class, () -> BackingFile.open(link, SIZE, me()));
        assertTrue(
                e.getMessage().startsWith("backing file " + link + " is a symbolic link (to " + victim + ")"),
                e.getMessage());
        assertFalse(Files.exists(victim), "the link's target was not created");

        fileOf(victim, SIZE);
        byte[] before = Files.readAllBytes(victim);
        assertThrows(UnsafeFileException.class, () -> BackingFile.open(link, SIZE, me()));
        assertEquals(before.length, Files.readAllBytes(victim).length);
    }

    @Test
    void refusesADirectoryAndAFifo() throws Exception {
        Path d = Files.createDirectory(dir.resolve("lun0.img"));
        UnsafeFileException e = assertThrows(UnsafeFileException.class, () -> BackingFile.open(d, SIZE, me()));
        assertEquals("backing file " + d + " is a directory, not a regular file", e.getMessage());

        Path fifo = dir.resolve("lun1.img");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, p.waitFor());
        e = assertThrows(UnsafeFileException.class, () -> BackingFile.open(fifo, SIZE, me()));
        assertEquals("backing file " + fifo + " is a FIFO, not a regular file", e.getMessage());
    }

    @Test
    void refusesAFileOfAnotherUser() throws IOException {
        Path p = fileOf(dir.resolve("lun0.img"), SIZE);
        long other = me() == 65534 ? 65533 : 65534;
        UnsafeFileException e = assertThrows(UnsafeFileException.class, () -> BackingFile.open(p, SIZE, other));
        assertTrue(
                e.getMessage()
                        .startsWith("backing file " + p + " is owned by uid " + me() + ", not by the daemon's"
                                + " user (uid " + other + ")"),
                e.getMessage());
    }

    @Test
    void refusesAFileWithAnotherName() throws IOException {
        Path p = fileOf(dir.resolve("lun0.img"), SIZE);
        Files.createLink(dir.resolve("elsewhere"), p);
        UnsafeFileException e = assertThrows(UnsafeFileException.class, () -> BackingFile.open(p, SIZE, me()));
        assertTrue(e.getMessage().startsWith("backing file " + p + " has 2 hard links"), e.getMessage());
    }

    @Test
    void refusesAnExistingFileOfAnotherSize() throws IOException {
        Path p = fileOf(dir.resolve("lun0.img"), SIZE / 2);
        IOException e = assertThrows(IOException.class, () -> BackingFile.open(p, SIZE, me()));
        assertEquals(
                "backing file " + p + " is " + SIZE / 2 + " bytes but the configured size is " + SIZE
                        + " bytes; refusing to resize it (fix the configuration or the file)",
                e.getMessage());
    }

    @Test
    void warnsAboutAFileGroupOrOthersMayRead() throws IOException {
        Path p = fileOf(dir.resolve("lun0.img"), SIZE);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        BackingFile f = BackingFile.open(p, SIZE, me());
        f.close();
        assertEquals(
                "backing file " + p + " is readable by group or others (mode 0644): local users can read the disk's"
                        + " contents; chmod 600 " + p,
                f.warning());

        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw-rw-"));
        f = BackingFile.open(p, SIZE, me());
        f.close();
        assertTrue(
                f.warning().contains("is readable and writable by group or others (mode 0666): local users can change"),
                f.warning());
    }

    @Test
    void theHandleReachesTheFileAfterItsNameIsGone() throws IOException {
        Path p = dir.resolve("lun0.img");
        BackingFile f = BackingFile.open(p, SIZE, me());
        try {
            Files.move(p, dir.resolve("moved"));
            Files.writeString(p, "someone else's", StandardCharsets.UTF_8);
            assertEquals(SIZE, Files.size(f.handle()));
        } finally {
            f.close();
        }
    }
}
