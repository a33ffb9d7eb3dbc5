package io.numaiscsi.daemon;

import io.numaiscsi.blockdev.backstore.FileStatus;
import io.numaiscsi.blockdev.backstore.UnsafeFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The directories leading to a path the daemon writes, the path itself included when it exists: each must belong to
 * root or the daemon's user, and none may be writable by group or others unless it has the sticky bit (as /tmp and
 * /dev/shm have), or another local user could rename or replace what lies beneath it. Checked along the path as
 * written (a symbolic link by its own owner) and along the real path it leads to.
 */
final class DirectoryChain {

    private DirectoryChain() {}

    static void check(Path dir, long uid) throws IOException {
        Path written = dir.toAbsolutePath().normalize();
        Path deepest = null;
        for (Path p : prefixes(written)) {
            FileStatus s = FileStatus.ofLinkIfExists(p);
            if (s == null) {
                break;
            }
            check(p, s, written, uid);
            if (!Files.exists(p)) {
                break; // a dangling link: creating the directory fails on it
            }
            deepest = p;
        }
        if (deepest != null) {
            for (Path p : prefixes(deepest.toRealPath())) {
                check(p, FileStatus.ofLink(p), written, uid);
            }
        }
    }

    /** {@code /a/b} gives {@code /}, {@code /a}, {@code /a/b}. */
    private static List<Path> prefixes(Path absolute) {
        List<Path> out = new ArrayList<>();
        Path p = absolute.getRoot();
        out.add(p);
        for (Path name : absolute) {
            p = p.resolve(name);
            out.add(p);
        }
        return out;
    }

    private static void check(Path p, FileStatus s, Path dir, long uid) throws IOException {
        String where = p.equals(dir) ? p.toString() : p + " (on the way to " + dir + ")";
        if (s.uid() != 0 && s.uid() != uid) {
            throw new UnsafeFileException(where + " belongs to uid " + s.uid() + "; the directories leading to the"
                    + " daemon's files must belong to root or to the daemon's user (uid " + uid + "), or their owner"
                    + " could replace what is inside: keep the daemon's files elsewhere, or chown " + uid + " " + p);
        }
        if (s.symbolicLink()) {
            return; // where it leads is checked along the real path
        }
        if (!s.directory()) {
            throw new IOException(where + " is " + s.kind() + ", not a directory");
        }
        if (s.groupOrOtherWritable() && !s.sticky()) {
            throw new UnsafeFileException(where + " is writable by group or others (mode " + s.mode() + ") without"
                    + " the sticky bit, so another user could replace what is inside: chmod go-w " + p
                    + " (or chmod +t if it must stay shared, as /tmp)");
        }
    }
}
