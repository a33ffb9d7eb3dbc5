package io.numaiscsi.admin;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/** Failures in plain words with what to do, never a Java class name or stack trace. */
final class Plain {
    private Plain() {}

    /** What the system said, e.g. "no such file", "connection refused". */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? "failed" : m.substring(0, 1).toLowerCase(Locale.ROOT) + m.substring(1);
    }

    /** Connecting to the socket failed: no daemon there, a socket left by one that is gone, or not this user's. */
    static String unreachable(Path socket, IOException e) {
        String reason = reason(e);
        if (reason.contains("permission denied")) {
            return "cannot open the admin socket " + socket
                    + ": permission denied (it is the daemon's user's only: run "
                    + "this as that user, e.g. with sudo)";
        }
        return "no daemon answers on " + socket + " (" + reason + "): start numa-iscsi-target, or name its socket with "
                + "--socket PATH or NUMA_ISCSI_ADMIN_SOCKET";
    }

    /** The connection broke after it was made. */
    static String brokenOff(Path socket, IOException e) {
        return "the daemon on " + socket + " did not answer: " + reason(e) + " (see its log; it may have stopped)";
    }
}
