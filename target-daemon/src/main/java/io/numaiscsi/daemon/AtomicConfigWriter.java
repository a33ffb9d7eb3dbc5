package io.numaiscsi.daemon;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.ConfigWriter;
import io.numaiscsi.config.TargetConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Replaces a configuration file with a configuration's text (the {@link ConfigWriter} format) so that a crash at any
 * moment leaves the old file or the new one, never a mix: the text goes to a temporary file in the same directory
 * (created 0600, so secrets are never readable by others), which is synced and read back with {@link ConfigLoader};
 * a text that does not load, or loads into another configuration, is refused, the temporary file removed and
 * nothing changed. Then it is renamed over the file and the directory synced.
 *
 * <p>The new file's mode: 0600 when the configuration holds CHAP secrets, else the replaced file's mode (0644 for a
 * new file). The replaced file stays as {@code FILE.bak}: the new text is written from the model, so the comments,
 * key order and layout of a hand-written file are gone from FILE, and the backup keeps them (one generation).
 */
public final class AtomicConfigWriter {
    static final String BACKUP_SUFFIX = ".bak";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> NEW_FILE = PosixFilePermissions.fromString("rw-r--r--");

    private AtomicConfigWriter() {}

    /**
     * Writes {@code config} to {@code file} (a symbolic link: to the file it points to) and returns the path written.
     *
     * @throws ConfigException the text written does not read back as {@code config}; the message names the file
     *                         and, when the loader refused it, the line and key (nothing was changed)
     * @throws IOException     the file could not be written (nothing was changed unless the directory sync failed)
     */
    public static Path write(Path file, TargetConfig config) throws IOException, ConfigException {
        boolean replacing = Files.exists(file);
        Path target = replacing ? file.toRealPath() : file.toAbsolutePath().normalize();
        if (replacing && !Files.isRegularFile(target)) {
            throw new IOException(target + " is not a regular file");
        }
        Set<PosixFilePermission> mode =
                config.holdsSecrets() ? OWNER_ONLY : replacing ? Files.getPosixFilePermissions(target) : NEW_FILE;
        byte[] text = ConfigWriter.write(config).getBytes(StandardCharsets.UTF_8);
        Path temp = Files.createTempFile(
                target.getParent(),
                "." + target.getFileName() + ".",
                ".tmp",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        boolean renamed = false;
        try {
            Files.setPosixFilePermissions(temp, mode);
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(text);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            readBack(temp, target, config);
            if (replacing) {
                backUp(target);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            renamed = true;
        } finally {
            if (!renamed) {
                Files.deleteIfExists(temp);
            }
        }
        syncDirectory(target.getParent());
        return target;
    }

    /** What the temporary file holds, loaded as {@code target} (errors name the file the administrator knows). */
    private static void readBack(Path temp, Path target, TargetConfig config) throws IOException, ConfigException {
        TargetConfig read = ConfigLoader.parse(Files.readString(temp, StandardCharsets.UTF_8), target.toString());
        if (!read.equals(config)) {
            throw new ConfigException(
                    target.toString(),
                    0,
                    "",
                    "the text written does not read back as the "
                            + "configuration it was written from (a ConfigWriter bug)");
        }
    }

    /**
     * {@code target} as {@code target.bak}, replacing an older backup: a second name for the same file (contents,
     * mode and owner kept without a copy), or a copy where the file system has no hard links.
     */
    private static void backUp(Path target) throws IOException {
        Path backup = target.resolveSibling(target.getFileName() + BACKUP_SUFFIX);
        Path staged = target.resolveSibling("." + target.getFileName() + BACKUP_SUFFIX + "."
                + ProcessHandle.current().pid() + ".tmp");
        Files.deleteIfExists(staged);
        try {
            Files.createLink(staged, target);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(target, staged, StandardCopyOption.COPY_ATTRIBUTES);
        }
        try {
            Files.move(staged, backup, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(staged);
        }
    }

    /** Makes the renames durable: a file's fsync does not cover its directory entry. */
    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
