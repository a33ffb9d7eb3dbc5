package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.backstore.ProcessUser;
import io.numaiscsi.blockdev.backstore.UnsafeFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data directory: created private, or refused when someone else could control it. */
class DataDirectoryTest {
    private static final long ME = ProcessUser.uid();
    private static final String NAME = ProcessUser.name();
    private static final int OTHER = ME == 65534 ? 65533 : 65534;

    @TempDir
    Path tmp;

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static String refusal(Path dir) {
        return assertThrows(UnsafeFileException.class, () -> DataDirectory.prepare(dir, ME, NAME))
                .getMessage();
    }

    @Test
    void aMissingDirectoryIsCreated0700WithItsParents() throws IOException {
        Path dir = tmp.resolve("a/b/data");
        DataDirectory.prepare(dir, ME, NAME);
        assertEquals("rwx------", mode(dir));
        assertEquals("rwx------", mode(tmp.resolve("a/b")));
        assertEquals("rwx------", mode(tmp.resolve("a")));
    }

    @Test
    void anExistingPrivateDirectoryIsKept() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
        DataDirectory.prepare(dir, ME, NAME);
        assertEquals("rwxr-x---", mode(dir), "left as it is: nobody else can write it");
    }

    @Test
    void aSymbolicLinkIsRefused() throws IOException {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path dir = Files.createSymbolicLink(tmp.resolve("data"), real);
        assertTrue(
                refusal(dir)
                        .startsWith("data directory " + dir + " is a symbolic link (to " + real + "); it must be"
                                + " a real directory"),
                refusal(dir));
    }

    @Test
    void aFileIsRefused() throws IOException {
        Path dir = Files.createFile(tmp.resolve("data"));
        assertEquals("data directory " + dir + " is a regular file, not a directory", refusal(dir));
    }

    @Test
    void aDirectoryOfAnotherUserIsRefusedWithTheFix() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.setAttribute(dir, "unix:uid", OTHER);
        String m = refusal(dir);
        assertTrue(
                m.startsWith("data directory " + dir + " is owned by uid " + OTHER + ", not by the daemon's user "
                        + NAME + " (uid " + ME + ")"),
                m);
        assertTrue(m.contains("chown " + NAME + " " + dir + " && chmod 700 " + dir), m);
    }

    @Test
    void aDirectoryOthersMayWriteIsRefusedWithTheFix() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.setAttribute(dir, "unix:mode", 0777);
        assertEquals(
                "data directory " + dir + " is writable by group or others (mode 0777), so another user could"
                        + " plant or replace LUN files in it: chmod 700 " + dir,
                refusal(dir));
        Files.setAttribute(dir, "unix:mode", 01770);
        assertTrue(refusal(dir).contains("(mode 1770)"), "the sticky bit does not make a data directory private");
    }

    @Test
    void aMissingDirectoryUnderAnUnsafeParentIsNotCreated() throws IOException {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        Path dir = open.resolve("data");
        assertTrue(refusal(dir).startsWith(open + " (on the way to " + dir + ") is writable by group or others"));
        assertTrue(Files.notExists(dir));
    }
}
