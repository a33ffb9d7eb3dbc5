package io.numaiscsi.fiotests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;

/**
 * Where the harness puts the daemons' data directories: under one short directory per test JVM in the temp
 * directory ({@code /tmp/nit-it-*}), not under the checkout. A daemon's admin socket lives in its data directory and
 * a Unix socket path holds at most 107 bytes, which {@code <checkout>/fio-tests/target/it-data/<test>-<random>/admin.sock}
 * exceeds from a deep enough checkout (CI's did: "Unix domain path too long").
 */
final class ItDataDirs {
    private static Path root;

    private ItDataDirs() {}

    /** A new directory {@code PREFIX-<random>}, mode 0700, under this JVM's root. */
    static Path newDir(String prefix) throws IOException {
        return Files.createTempDirectory(root(), prefix.endsWith("-") ? prefix : prefix + "-");
    }

    /**
     * This JVM's root: made with a random name (another user cannot have planted it), then opened to others (0755)
     * so that a daemon run as another user (LocalUserTest) can reach the directories inside; deleted at exit if empty.
     */
    static synchronized Path root() throws IOException {
        if (root == null) {
            Path made = Files.createTempDirectory("nit-it-");
            Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwxr-xr-x"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteIfEmpty(made), "it-data-cleanup"));
            root = made;
        }
        return root;
    }

    private static void deleteIfEmpty(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            if (entries.findAny().isEmpty()) {
                Files.delete(dir);
            }
        } catch (IOException e) {
            // kept data (it.keepData) or a directory still in use: leave it
        }
    }
}
