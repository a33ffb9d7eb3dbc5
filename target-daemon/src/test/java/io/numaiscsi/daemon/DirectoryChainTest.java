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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Owners and modes of the directories on the way to a path, as written and as really reached. */
class DirectoryChainTest {
    private static final long ME = ProcessUser.uid();
    private static final int OTHER = ME == 65534 ? 65533 : 65534;

    @TempDir
    Path tmp;

    private static String refusal(Path dir) {
        return assertThrows(UnsafeFileException.class, () -> DirectoryChain.check(dir, ME))
                .getMessage();
    }

    @Test
    void privateDirectoriesAndMissingOnesPass() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("a/b"));
        DirectoryChain.check(d, ME);
        DirectoryChain.check(d.resolve("missing/deeper"), ME);
        assertTrue(Files.notExists(d.resolve("missing")), "checking creates nothing");
    }

    @Test
    void aStickySharedDirectoryOnTheWayPasses() throws IOException {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 01777);
        DirectoryChain.check(Files.createDirectory(shared.resolve("mine")), ME);
    }

    @Test
    void aNonStickyDirectoryOthersMayWriteIsRefused() throws IOException {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        Path d = Files.createDirectory(open.resolve("d"));
        assertEquals(
                open + " (on the way to " + d + ") is writable by group or others (mode 0777) without the sticky"
                        + " bit, so another user could replace what is inside: chmod go-w " + open
                        + " (or chmod +t if it must stay shared, as /tmp)",
                refusal(d));
        Files.setAttribute(open, "unix:mode", 0775);
        assertTrue(refusal(d).contains("(mode 0775)"), "group-writable counts too");
    }

    @Test
    void aDirectoryOfAnotherUserOnTheWayIsRefused() throws IOException {
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", OTHER);
        Path d = theirs.resolve("d");
        assertTrue(refusal(d).startsWith(theirs + " (on the way to " + d + ") belongs to uid " + OTHER), refusal(d));
    }

    @Test
    void aLinkOfAnotherUserOnTheWayIsRefusedEvenToAGoodPlace() throws IOException {
        Path good = Files.createDirectory(tmp.resolve("good"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), good);
        Files.setAttribute(link, "unix:uid", OTHER, LinkOption.NOFOLLOW_LINKS);
        assertTrue(
                refusal(link.resolve("d"))
                        .startsWith(link + " (on the way to " + link.resolve("d") + ") belongs to uid " + OTHER),
                refusal(link.resolve("d")));
    }

    @Test
    void aLinkIntoAnUnsafePlaceIsRefusedAlongTheRealPath() throws IOException {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        Path inside = Files.createDirectory(open.resolve("inside"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), inside);
        assertTrue(
                refusal(link).startsWith(open + " (on the way to " + link + ") is writable by group or others"),
                refusal(link));
    }

    @Test
    void aFileOnTheWayIsNotADirectory() throws IOException {
        Path f = Files.createFile(tmp.resolve("f"));
        IOException e = assertThrows(IOException.class, () -> DirectoryChain.check(f.resolve("d"), ME));
        assertEquals(f + " (on the way to " + f.resolve("d") + ") is a regular file, not a directory", e.getMessage());
    }
}
