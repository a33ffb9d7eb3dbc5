package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateDirectoriesTest {
    @TempDir
    Path tmp;

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void createsEachMissingDirectory0700AndLeavesExistingOnesAlone() throws IOException {
        Path existing = Files.createDirectory(tmp.resolve("existing"));
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rwxr-xr-x"));
        PrivateDirectories.createMissing(existing.resolve("a/b"));
        assertEquals("rwx------", mode(existing.resolve("a")));
        assertEquals("rwx------", mode(existing.resolve("a/b")));
        assertEquals("rwxr-xr-x", mode(existing));
        PrivateDirectories.createMissing(existing.resolve("a/b"));
        assertEquals("rwx------", mode(existing.resolve("a/b")), "nothing to do the second time");
    }
}
