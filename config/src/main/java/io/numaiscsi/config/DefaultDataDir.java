package io.numaiscsi.config;

import com.sun.security.auth.module.UnixSystem;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The data directory when the configuration names none. Never under a directory every user may write (/tmp,
 * /var/tmp), where another user could create it first: {@code /var/lib/numa-iscsi-target} for root (a service),
 * else the user's own data directory ({@code $XDG_DATA_HOME/numa-iscsi-target}, by default
 * {@code ~/.local/share/numa-iscsi-target}).
 */
final class DefaultDataDir {
    static final Path SERVICE = Path.of("/var/lib/numa-iscsi-target");
    private static final String NAME = "numa-iscsi-target";

    private DefaultDataDir() {}

    static Path forThisProcess() {
        // $HOME first, as the XDG spec says: Java's user.home is the passwd entry's, whatever $HOME holds
        Path home = absolute(System.getenv("HOME"));
        return of(
                new UnixSystem().getUid() == 0,
                System.getenv("XDG_DATA_HOME"),
                home != null ? home.toString() : System.getProperty("user.home"));
    }

    static Path of(boolean root, String xdgDataHome, String home) {
        if (root) {
            return SERVICE;
        }
        Path xdg = absolute(xdgDataHome);
        if (xdg != null) {
            return xdg.resolve(NAME).normalize();
        }
        return Path.of(home, ".local", "share", NAME).toAbsolutePath().normalize();
    }

    /** The XDG base directory spec ignores a relative (or empty) value. */
    private static Path absolute(String dir) {
        if (dir == null || dir.isBlank()) {
            return null;
        }
        try {
            Path p = Path.of(dir);
            return p.isAbsolute() ? p : null;
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
