package io.numaiscsi.fiotests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The JVM options the launchers give the daemon by default: {@code DEFAULT_JAVA_OPTS} of bin/numa-iscsi-target (the
 * Debian package's launcher has the same line). Every daemon the tests start runs with them, so the tests run the
 * collector and heap a user gets.
 */
public final class LauncherJvmOptions {
    public static final List<String> DEFAULTS = read(Path.of("..", "bin", "numa-iscsi-target"));

    private LauncherJvmOptions() {}

    static List<String> read(Path launcher) {
        try {
            for (String line : Files.readAllLines(launcher)) {
                if (line.startsWith("DEFAULT_JAVA_OPTS=\"") && line.endsWith("\"")) {
                    String opts = line.substring("DEFAULT_JAVA_OPTS=\"".length(), line.length() - 1)
                            .trim();
                    return opts.isEmpty() ? List.of() : List.of(opts.split("\\s+"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(launcher + ": cannot read the launcher's default JVM options", e);
        }
        throw new IllegalStateException(launcher + " has no DEFAULT_JAVA_OPTS=\"...\" line");
    }
}
