package io.numaiscsi.blockdev.backstore;

import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.SaveError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few libc calls Java's file API lacks: opening without following a symbolic link, fchmod and ftruncate on that
 * descriptor, hole punching, SEEK_DATA/SEEK_HOLE and flock, and the block device ioctls (sizes, zeroing).
 */
public interface LibC {
    int O_RDONLY = 0;
    int O_RDWR = 2;
    int O_CREAT = 0x40;
    int O_EXCL = 0x80;
    int O_CLOEXEC = 0x80000;
    /** Not the same number everywhere: arm, arm64 and powerpc use 0x8000, the generic Linux value is 0x20000. */
    int O_NOFOLLOW = noFollowFlag();

    int EEXIST = 17;
    int ELOOP = 40;
    int FALLOC_FL_KEEP_SIZE = 0x01;
    int FALLOC_FL_PUNCH_HOLE = 0x02;
    int SEEK_DATA = 3;
    int SEEK_HOLE = 4;
    int ENXIO = 6;
    int EOPNOTSUPP = 95;
    int EWOULDBLOCK = 11;
    int LOCK_EX = 2;
    int LOCK_NB = 4;
    int EBUSY = 16;
    int EACCES = 13;
    int EPERM = 1;
    int EINVAL = 22;
    int ENOTTY = 25;
    /** Device size in bytes (u64). */
    long BLKGETSIZE64 = 0x80081272L;
    /** Logical block size (int). */
    long BLKSSZGET = 0x1268;
    /** Whether the device is read-only (int, non-zero: read-only). */
    long BLKROGET = 0x125e;
    /** Physical block size (unsigned int). */
    long BLKPBSZGET = 0x127b;
    /** Zeroes {offset, length} (u64[2]), offloaded (WRITE ZEROES / WRITE SAME) where the device can, else by the kernel. */
    long BLKZEROOUT = 0x127f;

    @SaveError
    int open(String path, int flags, int mode);

    @SaveError
    int close(int fd);

    @SaveError
    int fallocate(int fd, int mode, long offset, long length);

    @SaveError
    long lseek(int fd, long offset, int whence);

    @SaveError
    int fchmod(int fd, int mode);

    @SaveError
    int ftruncate(int fd, long length);

    /** fstat(2) into {@code stat} (struct stat, at least {@link FileAllocation#STAT_SIZE} bytes). */
    @SaveError
    int fstat(int fd, byte[] stat);

    @SaveError
    int flock(int fd, int operation);
    /** An ioctl whose argument is a u64 or u64[]: BLKGETSIZE64, BLKZEROOUT. */
    @SaveError
    int ioctl(int fd, long request, long[] arg);

    /** An ioctl whose argument is an int: BLKSSZGET, BLKPBSZGET, BLKROGET. */
    @SaveError
    int ioctl(int fd, long request, int[] arg);

    String strerror(int errnum);

    /**
     * libc, or null where it cannot be loaded: callers fall back to portable behaviour where there is one, but backing
     * files are not opened without it ({@link BackingFile}).
     */
    static LibC instance() {
        return Holder.LIBC;
    }

    static int errno() {
        return jnr.ffi.Runtime.getRuntime(Holder.LIBC).getLastError();
    }

    private static int noFollowFlag() {
        return switch (jnr.ffi.Platform.getNativePlatform().getCPU()) {
            case ARM, AARCH64, PPC, PPC64, PPC64LE -> 0x8000;
            default -> 0x20000;
        };
    }

    /** Lazy, failure-tolerant loading. */
    final class Holder {
        private static final Logger LOG = LoggerFactory.getLogger(LibC.class);
        static final LibC LIBC = load();

        private Holder() {}

        private static LibC load() {
            try {
                return LibraryLoader.create(LibC.class).load("c");
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("libc not loadable through jnr-ffi ({}); file-backed LUNs cannot be opened", e.toString());
                return null;
            }
        }
    }
}
