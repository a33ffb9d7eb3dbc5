package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Process-wide settings.
 *
 * @param dataDir   absolute directory that relative LUN paths resolve against
 * @param ioThreads threads for blocking backing-store I/O (1..256)
 * @param eventModel how connections and LUNs map to event threads
 */
public record DaemonSettings(Path dataDir, int ioThreads, EventModel eventModel) {

    /** PER_LUN: an event thread per LUN (the default). CENTRALIZED: one thread for everything, as tgtd. */
    public enum EventModel { PER_LUN, CENTRALIZED }

    public DaemonSettings {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(eventModel, "eventModel");
    }

    public DaemonSettings(Path dataDir, int ioThreads) {
        this(dataDir, ioThreads, EventModel.PER_LUN);
    }

    public DaemonSettings withEventModel(EventModel model) {
        return new DaemonSettings(dataDir, ioThreads, model);
    }
}
