package io.numaiscsi.daemon.state;

import io.numaiscsi.daemon.PrivateDirectories;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;

/**
 * Small state files under the data directory, replaced so that a crash at any moment leaves the old content or the
 * new: the new text goes to a temporary file beside the file, which is synced and renamed over it, and then the
 * directory is synced. Files are 0600, directories 0700.
 */
public final class DurableFiles {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private DurableFiles() {}

    /**
     * The file of {@code target}'s LUN {@code lun} under {@code root}: {@code root/<target name>/lun-<n>.json}, one
     * directory per target whatever case the config spells its name in (iSCSI names are case-insensitive).
     */
    public static Path lunFile(Path root, String target, int lun) {
        if (target.isEmpty() || target.contains("/") || target.startsWith(".")) {
            throw new IllegalArgumentException("target name " + target + " cannot name a directory");
        }
        return root.resolve(target.toLowerCase(Locale.ROOT)).resolve("lun-" + lun + ".json");
    }

    /** Where {@link #replace} writes before the rename. */
    public static Path temporary(Path file) {
        return file.resolveSibling("." + file.getFileName() + ".tmp");
    }

    /** Makes {@code text} the durable content of {@code file}, creating missing directories (synced too). */
    public static void replace(Path file, byte[] text) throws IOException {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            PrivateDirectories.createMissing(dir);
            syncDirectory(dir.getParent());
            syncDirectory(dir.getParent().getParent());
        }
        Path temp = temporary(file);
        try (FileChannel ch = FileChannel.open(
                temp,
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING),
                PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
            ByteBuffer b = ByteBuffer.wrap(text);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(dir);
    }

    /** Removes {@code file} (and a temporary left beside it) durably. */
    public static void remove(Path file) throws IOException {
        if (Files.deleteIfExists(file)) {
            syncDirectory(file.getParent());
        }
        Files.deleteIfExists(temporary(file));
    }

    /** A file's fsync does not make its directory entry durable: the directory is synced too. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
