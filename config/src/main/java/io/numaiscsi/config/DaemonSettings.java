package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Process-wide settings.
 *
 * @param dataDir   absolute directory that relative LUN paths resolve against
 * @param ioThreads threads for blocking backing-store I/O (1..256)
 * @param eventModel how connections and LUNs map to event threads
 * @param secretFileCheck what a configuration file holding CHAP secrets that group or others may read gets
 */
public record DaemonSettings(Path dataDir, int ioThreads, EventModel eventModel, SecretFileCheck secretFileCheck) {

    /** PER_LUN: an event thread per LUN (the default). CENTRALIZED: one thread for everything, as tgtd. */
    public enum EventModel { PER_LUN, CENTRALIZED }

    /** WARN: a warning in the log (the default). REFUSE: the daemon does not start. */
    public enum SecretFileCheck { WARN, REFUSE }

    public DaemonSettings {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(eventModel, "eventModel");
        Objects.requireNonNull(secretFileCheck, "secretFileCheck");
    }

    public DaemonSettings(Path dataDir, int ioThreads) {
        this(dataDir, ioThreads, EventModel.PER_LUN);
    }

    public DaemonSettings(Path dataDir, int ioThreads, EventModel eventModel) {
        this(dataDir, ioThreads, eventModel, SecretFileCheck.WARN);
    }

    public DaemonSettings withEventModel(EventModel model) {
        return new DaemonSettings(dataDir, ioThreads, model, secretFileCheck);
    }

    public DaemonSettings withDataDir(Path dir) {
        return new DaemonSettings(dir, ioThreads, eventModel, secretFileCheck);
    }
}
