package io.numaiscsi.daemon;

import io.numaiscsi.blockdev.backstore.FileStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the missing directories of a path, parents first, each with mode 0700 whatever the umask. */
public final class PrivateDirectories {
    private static final Logger LOG = LoggerFactory.getLogger(PrivateDirectories.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private PrivateDirectories() {}

    public static void createMissing(Path dir) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path p = dir.toAbsolutePath().normalize();
                p != null && FileStatus.ofLinkIfExists(p) == null;
                p = p.getParent()) {
            missing.push(p);
        }
        for (Path p : missing) {
            // mkdir with 0700: the umask can only take bits away; the chmod then sets exactly 0700
            Files.createDirectory(p, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            Files.setPosixFilePermissions(p, OWNER_ONLY);
            LOG.info("created {} (mode 0700)", p);
        }
    }
}
