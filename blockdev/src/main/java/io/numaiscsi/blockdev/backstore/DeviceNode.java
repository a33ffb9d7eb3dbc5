package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * One exclusive descriptor on a block device: opened O_RDWR (O_RDONLY for a read-only LUN) with O_CLOEXEC|O_EXCL,
 * which on a block device claims it, so the open fails (EBUSY) while it is mounted, held by device-mapper, md or
 * another exclusive opener such as a second daemon, and they in turn cannot take it while the daemon holds it. What
 * was opened is checked on the descriptor (through {@code /proc/self/fd/N}) to be a block device; its sizes come
 * from its ioctls.
 */
final class DeviceNode {
    private final LibC libc;
    private final int fd;
    private final DeviceGeometry geometry;

    private DeviceNode(LibC libc, int fd, DeviceGeometry geometry) {
        this.libc = libc;
        this.fd = fd;
        this.geometry = geometry;
    }

    static DeviceNode open(Path device, BackingAccess access) throws IOException {
        LibC libc = LibC.instance();
        if (libc == null) {
            throw new IOException(
                    device + ": libc is not loadable through jnr-ffi; block devices are only opened through"
                            + " it (O_EXCL, ioctl)");
        }
        FileStatus before;
        try {
            before = FileStatus.of(device);
        } catch (NoSuchFileException e) {
            throw new IOException("block device " + device + " does not exist");
        }
        if (!before.blockDevice()) {
            throw notBlockDevice(device, before);
        }
        int fd = libc.open(device.toString(), access.openFlag() | LibC.O_CLOEXEC | LibC.O_EXCL, 0);
        if (fd < 0) {
            throw openFailed(libc, device, LibC.errno(), access);
        }
        try {
            FileStatus opened = FileStatus.of(descriptorPath(fd));
            if (!opened.blockDevice()) {
                throw notBlockDevice(device, opened); // replaced between the stat and the open
            }
            if (access.writable() && readOnlyDevice(libc, fd)) {
                // the kernel opens a read-only device for writing and fails each write (EPERM): refuse it up front
                throw new IOException("block device " + device + " is read-only (blockdev --setro, losetup -r, a"
                        + " write-protected disk): serve it from a LUN with read-only: true, or make it writable (blockdev"
                        + " --setrw)");
            }
            return new DeviceNode(libc, fd, readGeometry(libc, fd, device));
        } catch (IOException | RuntimeException e) {
            libc.close(fd);
            throw e;
        }
    }

    private static boolean readOnlyDevice(LibC libc, int fd) {
        int[] readOnly = new int[1];
        return libc.ioctl(fd, LibC.BLKROGET, readOnly) == 0 && readOnly[0] != 0;
    }

    private static IOException notBlockDevice(Path device, FileStatus status) {
        return new IOException(device + " is " + status.kind() + ", not a block device"
                + (status.regularFile() ? " (use backing: file for a file)" : ""));
    }

    private static IOException openFailed(LibC libc, Path device, int errno, BackingAccess access) {
        String reason = libc.strerror(errno) + " (errno " + errno + ")";
        if (errno == LibC.EBUSY) {
            Path real = DeviceHolders.realPath(device);
            return new IOException("block device " + device + " is in use (mounted, or held by another process or "
                    + "device-mapper): " + DeviceHolders.system().describe(device, real) + "; " + reason);
        }
        if (errno == LibC.EACCES || errno == LibC.EPERM) {
            return new IOException(
                    "the daemon's user (uid " + ProcessUser.uid() + ") cannot open block device " + device
                            + (access.writable() ? " for reading and writing: " : " for reading: ") + reason
                            + "; give it access with a udev rule (docs/backing-stores.md,"
                            + " \"Permissions and udev\")");
        }
        return new IOException("cannot open block device " + device + ": " + reason);
    }

    private static DeviceGeometry readGeometry(LibC libc, int fd, Path device) throws IOException {
        long[] size = new long[1];
        if (libc.ioctl(fd, LibC.BLKGETSIZE64, size) != 0) {
            throw ioctlFailed(libc, device, "BLKGETSIZE64");
        }
        int[] logical = new int[1];
        if (libc.ioctl(fd, LibC.BLKSSZGET, logical) != 0) {
            throw ioctlFailed(libc, device, "BLKSSZGET");
        }
        int[] physical = new int[1];
        if (libc.ioctl(fd, LibC.BLKPBSZGET, physical) != 0) {
            physical[0] = 0; // not reported: one logical block per physical block
        }
        if (logical[0] <= 0 || Integer.bitCount(logical[0]) != 1) {
            throw new IOException(device + " reports a logical block size of " + logical[0] + " bytes");
        }
        return new DeviceGeometry(size[0], logical[0], physical[0]);
    }

    private static IOException ioctlFailed(LibC libc, Path device, String request) {
        int errno = LibC.errno();
        return new IOException(
                request + " on " + device + " failed: " + libc.strerror(errno) + " (errno " + errno + ")");
    }

    private static Path descriptorPath(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    /** The open device's path in /proc: opening it opens this device, whatever the original path names by then. */
    Path handle() {
        return descriptorPath(fd);
    }

    DeviceGeometry geometry() {
        return geometry;
    }

    int fd() {
        return fd;
    }

    LibC libc() {
        return libc;
    }

    void close() {
        libc.close(fd);
    }
}
