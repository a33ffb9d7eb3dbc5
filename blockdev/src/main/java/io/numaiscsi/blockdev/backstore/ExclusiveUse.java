package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Keeps a second daemon (or a second LUN of this one) off a backing file while a LUN serves it: an exclusive
 * {@code flock} on the LUN's own descriptor, held until that descriptor is closed. The lock is advisory: tools that do
 * not ask for it are not kept out, but every daemon is. When the file is taken, the message names the holder from
 * {@code /proc/locks}.
 */
final class ExclusiveUse {
    private static final Path PROC_LOCKS = Path.of("/proc/locks");

    private ExclusiveUse() {}

    /** Locks {@code fd} (opened on {@code path}) or throws naming who holds it. */
    static void lock(LibC libc, int fd, Path path) throws IOException {
        if (libc.flock(fd, LibC.LOCK_EX | LibC.LOCK_NB) == 0) {
            return;
        }
        int errno = LibC.errno();
        if (errno != LibC.EWOULDBLOCK) {
            throw new IOException("cannot lock backing file " + path + " for exclusive use: " + libc.strerror(errno));
        }
        throw new BackingInUseException("backing file " + path + " is in use by " + holder(path)
                + "; a LUN's file is served by one daemon at a time (stop the other, or give this LUN another file)");
    }

    /** "process PID (command line)" from /proc/locks, or a generic phrase when it cannot be told. */
    static String holder(Path path) {
        try {
            long inode = ((Number) Files.getAttribute(path, "unix:ino")).longValue();
            long dev = ((Number) Files.getAttribute(path, "unix:dev")).longValue();
            Long pid = flockHolder(Files.readAllLines(PROC_LOCKS), major(dev), minor(dev), inode);
            if (pid == null) {
                return "another process";
            }
            String who = pid == ProcessHandle.current().pid() ? " (this daemon: another LUN)" : commandLine(pid);
            return "process " + pid + who;
        } catch (IOException | RuntimeException e) {
            return "another process";
        }
    }

    /**
     * The PID holding a FLOCK on the inode, from /proc/locks lines such as
     * {@code "1: FLOCK  ADVISORY  WRITE 4242 00:1a:12345 0 EOF"} (device major and minor in hex), or null.
     */
    static Long flockHolder(List<String> procLocks, long major, long minor, long inode) {
        String wanted = String.format("%02x:%02x:%d", major, minor, inode);
        for (String line : procLocks) {
            String[] f = line.trim().split("\\s+", -1);
            // a blocked waiter's line starts with "N: ->" and shifts the fields by one; it is not the holder
            if (f.length >= 6 && f[1].equals("FLOCK") && f[5].equals(wanted)) {
                try {
                    return Long.parseLong(f[4]);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }

    private static String commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline"));
            String cmd =
                    new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').trim();
            if (cmd.length() > 160) {
                cmd = cmd.substring(0, 160) + "...";
            }
            return cmd.isEmpty() ? "" : " (" + cmd + ")";
        } catch (IOException e) {
            return "";
        }
    }

    /** glibc's encoding of st_dev. */
    static long major(long dev) {
        return ((dev >>> 8) & 0xfff) | ((dev >>> 32) & 0xfffff000L);
    }

    static long minor(long dev) {
        return (dev & 0xff) | ((dev >>> 12) & 0xffffff00L);
    }
}
