package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Process-wide settings.
 *
 * @param dataDir   absolute directory that relative LUN paths resolve against
 * @param ioThreads threads for blocking backing-store I/O (1..256)
 */
public record DaemonSettings(Path dataDir, int ioThreads) {

    public DaemonSettings {
        Objects.requireNonNull(dataDir, "dataDir");
    }
}
