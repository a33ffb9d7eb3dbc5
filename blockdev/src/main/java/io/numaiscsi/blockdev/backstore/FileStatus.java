package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/** What stat(2) or lstat(2) says about one path: type, owner, mode bits, links and size. */
public final class FileStatus {
    private static final String ATTRIBUTES = "unix:mode,uid,nlink,size";
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int S_IFLNK = 0120000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFIFO = 0010000;
    private static final int S_ISVTX = 01000;
    private static final int GROUP_OTHER_WRITE = 0022;
    private static final int GROUP_OTHER_READ = 0044;

    private final int mode;
    private final long uid;
    private final int links;
    private final long size;

    private FileStatus(int mode, long uid, int links, long size) {
        this.mode = mode;
        this.uid = uid;
        this.links = links;
        this.size = size;
    }

    /** lstat: a symbolic link is described itself, not followed. */
    public static FileStatus ofLink(Path path) throws IOException {
        return read(path, LinkOption.NOFOLLOW_LINKS);
    }

    /** {@link #ofLink}, or null when nothing is there. */
    public static FileStatus ofLinkIfExists(Path path) throws IOException {
        try {
            return ofLink(path);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** stat: symbolic links followed (for {@code /proc/self/fd/N}, the open file itself). */
    public static FileStatus of(Path path) throws IOException {
        return read(path);
    }

    private static FileStatus read(Path path, LinkOption... options) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, ATTRIBUTES, options);
        return new FileStatus(
                (Integer) a.get("mode"), ((Integer) a.get("uid")) & 0xFFFFFFFFL, (Integer) a.get("nlink"), (Long)
                        a.get("size"));
    }

    public boolean regularFile() {
        return (mode & S_IFMT) == S_IFREG;
    }

    public boolean blockDevice() {
        return (mode & S_IFMT) == S_IFBLK;
    }

    public boolean directory() {
        return (mode & S_IFMT) == S_IFDIR;
    }

    public boolean symbolicLink() {
        return (mode & S_IFMT) == S_IFLNK;
    }

    public boolean sticky() {
        return (mode & S_ISVTX) != 0;
    }

    public boolean groupOrOtherWritable() {
        return (mode & GROUP_OTHER_WRITE) != 0;
    }

    public boolean groupOrOtherReadable() {
        return (mode & GROUP_OTHER_READ) != 0;
    }

    public long uid() {
        return uid;
    }

    public int links() {
        return links;
    }

    public long size() {
        return size;
    }

    /** The permission bits as chmod takes them, e.g. {@code 0644}, {@code 1777}. */
    public String mode() {
        return String.format("%04o", mode & 07777);
    }

    /** The file type for messages: "a regular file", "a directory", "a FIFO" ... */
    public String kind() {
        return switch (mode & S_IFMT) {
            case S_IFREG -> "a regular file";
            case S_IFDIR -> "a directory";
            case S_IFLNK -> "a symbolic link";
            case S_IFIFO -> "a FIFO";
            case S_IFSOCK -> "a socket";
            case S_IFBLK -> "a block device";
            case S_IFCHR -> "a character device";
            default -> "a file of unknown type";
        };
    }
}
