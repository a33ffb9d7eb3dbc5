package io.numaiscsi.daemon;

import io.numaiscsi.blockdev.backstore.FileStatus;
import io.numaiscsi.blockdev.backstore.UnsafeFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The data directory holds the LUN files, so only the daemon's user may control it: created with mode 0700 (parents
 * too) when missing; when it exists, a real directory (not a symbolic link) of the daemon's user that group and
 * others cannot write, reached through directories no other user controls ({@link DirectoryChain}).
 */
final class DataDirectory {

    private DataDirectory() {}

    /** Creates or checks {@code dir} for the user {@code uid} (named {@code user} in the fixes the messages give). */
    static void prepare(Path dir, long uid, String user) throws IOException {
        FileStatus s = FileStatus.ofLinkIfExists(dir);
        if (s == null) {
            DirectoryChain.check(dir, uid);
            PrivateDirectories.createMissing(dir);
            return;
        }
        if (s.symbolicLink()) {
            throw new UnsafeFileException("data directory " + dir + " is a symbolic link" + target(dir) + "; it must be"
                    + " a real directory: remove the link (the daemon then creates the directory) or set daemon.data-dir"
                    + " or --data-dir to the directory itself");
        }
        if (!s.directory()) {
            throw new UnsafeFileException("data directory " + dir + " is " + s.kind() + ", not a directory");
        }
        if (s.uid() != uid) {
            throw new UnsafeFileException("data directory " + dir + " is owned by uid " + s.uid() + ", not by the"
                    + " daemon's user " + user + " (uid " + uid + "); its owner controls the LUN files inside. If you"
                    + " made it: chown " + user + " " + dir + " && chmod 700 " + dir + "; if you did not, look at what"
                    + " it holds, remove it and let the daemon create it");
        }
        if (s.groupOrOtherWritable()) {
            throw new UnsafeFileException("data directory " + dir + " is writable by group or others (mode " + s.mode()
                    + "), so another user could plant or replace LUN files in it: chmod 700 " + dir);
        }
        DirectoryChain.check(dir, uid);
    }

    private static String target(Path link) {
        try {
            return " (to " + Files.readSymbolicLink(link) + ")";
        } catch (IOException | UnsupportedOperationException e) {
            return "";
        }
    }
}
