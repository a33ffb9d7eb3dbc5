package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One descriptor on a LUN's backing file, opened so that another local user cannot redirect it: the last path
 * component is never followed as a symbolic link (O_NOFOLLOW), a missing file is created with O_EXCL and then set to
 * mode 0600 and its size on the descriptor (fchmod, ftruncate: the umask plays no part), and what was opened must be
 * a regular file with one link, owned by the daemon's user, of the configured size. The checks stat the descriptor
 * (through {@code /proc/self/fd/N}), so nothing can be swapped in between the check and the use; everything else
 * opens the file through {@link #handle()}, the same inode. The descriptor holds an exclusive lock on the file
 * ({@link ExclusiveUse}) until it is closed: one daemon, one LUN per file.
 */
final class BackingFile {
    static final int CREATE_MODE = 0600;

    private final LibC libc;
    private final int fd;
    private final boolean created;
    private final String warning;

    private BackingFile(LibC libc, int fd, boolean created, String warning) {
        this.libc = libc;
        this.fd = fd;
        this.created = created;
        this.warning = warning;
    }

    /**
     * Opens {@code path} for reading and writing, creating a sparse file of {@code sizeBytes} when it is missing.
     *
     * @throws UnsafeFileException a symbolic link, not a regular file, more than one link, another owner than
     *     {@code ownerUid}
     * @throws IOException anything else, an existing file of another size included
     */
    static BackingFile open(Path path, long sizeBytes, long ownerUid) throws IOException {
        return open(path, sizeBytes, ownerUid, BackingAccess.READ_WRITE);
    }

    /**
     * As {@link #open(Path, long, long)} with {@code access}: read-only opens O_RDONLY and never creates the file (a
     * read-only LUN serves what is there).
     *
     * @throws UnsafeFileException a symbolic link, not a regular file, more than one link, another owner than
     *     {@code ownerUid}
     * @throws IOException anything else, an existing file of another size included
     */
    static BackingFile open(Path path, long sizeBytes, long ownerUid, BackingAccess access) throws IOException {
        LibC libc = LibC.instance();
        if (libc == null) {
            throw new IOException(
                    path + ": libc is not loadable through jnr-ffi; backing files are only opened through it"
                            + " (O_NOFOLLOW, fchmod)");
        }
        FileStatus before = FileStatus.ofLinkIfExists(path);
        if (before != null) {
            refuseLinkOrSpecial(path, before);
        }
        boolean create = before == null;
        if (create && !access.writable()) {
            throw new IOException("backing file " + path
                    + " does not exist; a read-only LUN serves an existing file and" + " never creates one");
        }
        int flags = access.openFlag() | LibC.O_CLOEXEC | LibC.O_NOFOLLOW | (create ? LibC.O_CREAT | LibC.O_EXCL : 0);
        int fd = libc.open(path.toAbsolutePath().toString(), flags, CREATE_MODE);
        if (fd < 0) {
            throw openFailed(libc, path, LibC.errno());
        }
        try {
            if (create) {
                setUp(libc, fd, path, sizeBytes);
            }
            FileStatus opened = FileStatus.of(descriptorPath(fd));
            check(path, opened, sizeBytes, ownerUid);
            ExclusiveUse.lock(libc, fd, path);
            return new BackingFile(libc, fd, create, warning(path, opened));
        } catch (IOException | RuntimeException e) {
            libc.close(fd);
            throw e;
        }
    }

    private static void refuseLinkOrSpecial(Path path, FileStatus status) throws IOException {
        if (status.symbolicLink()) {
            throw symbolicLink(path);
        }
        if (!status.regularFile()) {
            throw new UnsafeFileException("backing file " + path + " is " + status.kind() + ", not a regular file");
        }
    }

    private static UnsafeFileException symbolicLink(Path path) {
        String target;
        try {
            target = " (to " + Files.readSymbolicLink(path) + ")";
        } catch (IOException | UnsupportedOperationException e) {
            target = "";
        }
        return new UnsafeFileException("backing file " + path + " is a symbolic link" + target + "; the daemon does not"
                + " follow symbolic links to backing files (another user may have planted it): remove it, or point the LUN's"
                + " path at the file itself");
    }

    private static IOException openFailed(LibC libc, Path path, int errno) {
        if (errno == LibC.ELOOP) {
            return symbolicLink(path); // it became one after the lstat above
        }
        if (errno == LibC.EEXIST) {
            return new UnsafeFileException(
                    "backing file " + path + " appeared while the daemon was creating it; another"
                            + " process created it: check it and start again");
        }
        return new IOException(
                "cannot open backing file " + path + ": " + libc.strerror(errno) + " (errno " + errno + ")");
    }

    private static void setUp(LibC libc, int fd, Path path, long sizeBytes) throws IOException {
        if (libc.fchmod(fd, CREATE_MODE) != 0) {
            int errno = LibC.errno();
            throw new IOException("cannot set mode 0600 on " + path + ": " + libc.strerror(errno));
        }
        if (libc.ftruncate(fd, sizeBytes) != 0) { // sparse
            int errno = LibC.errno();
            throw new IOException("cannot size " + path + " to " + sizeBytes + " bytes: " + libc.strerror(errno));
        }
    }

    private static void check(Path path, FileStatus opened, long sizeBytes, long ownerUid) throws IOException {
        if (!opened.regularFile()) {
            throw new UnsafeFileException("backing file " + path + " is " + opened.kind() + ", not a regular file");
        }
        if (opened.uid() != ownerUid) {
            throw new UnsafeFileException("backing file " + path + " is owned by uid " + opened.uid() + ", not by the"
                    + " daemon's user (uid " + ownerUid
                    + "); the daemon only writes backing files of its own user: check where"
                    + " the file comes from, then chown " + ownerUid + " " + path);
        }
        if (opened.links() != 1) {
            throw new UnsafeFileException("backing file " + path + " has " + opened.links() + " hard links; the daemon"
                    + " only writes a backing file with one name (another name may be a file linked there for the daemon to"
                    + " overwrite): copy it to a file of its own");
        }
        if (opened.size() != sizeBytes) {
            throw new IOException("backing file " + path + " is " + opened.size() + " bytes but the configured size is "
                    + sizeBytes + " bytes; refusing to resize it (fix the configuration or the file)");
        }
    }

    private static String warning(Path path, FileStatus opened) {
        boolean read = opened.groupOrOtherReadable();
        boolean write = opened.groupOrOtherWritable();
        if (!read && !write) {
            return null;
        }
        return "backing file " + path + " is "
                + (read && write ? "readable and writable" : read ? "readable" : "writable")
                + " by group or others (mode " + opened.mode() + "): local users can " + (write ? "change" : "read")
                + " the disk's contents; chmod 600 " + path;
    }

    /** The open file's path in /proc: opening it opens this inode, whatever is at the original path by then. */
    Path handle() {
        return descriptorPath(fd);
    }

    private static Path descriptorPath(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    int fd() {
        return fd;
    }

    boolean created() {
        return created;
    }

    /** A line for the log when group or others may read or write the file, else null. */
    String warning() {
        return warning;
    }

    LibC libc() {
        return libc;
    }

    void close() {
        libc.close(fd);
    }
}
