package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/** The whole validated configuration. Build it with {@link ConfigLoader}. */
public record TargetConfig(DaemonSettings daemon, List<Portal> portals, IscsiSettings iscsi, List<TargetDefinition> targets,
                           CacheSettings cache, NumaSettings numa) {

    public TargetConfig {
        Objects.requireNonNull(daemon, "daemon");
        Objects.requireNonNull(iscsi, "iscsi");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(numa, "numa");
        portals = List.copyOf(portals);
        targets = List.copyOf(targets);
    }

    /** Without {@code cache:} and {@code numa:}: their defaults (cache off, real topology). */
    public TargetConfig(DaemonSettings daemon, List<Portal> portals, IscsiSettings iscsi, List<TargetDefinition> targets) {
        this(daemon, portals, iscsi, targets, CacheSettings.DEFAULT, NumaSettings.DEFAULT);
    }

    /** This configuration listening on other portals (the {@code --portal} override). */
    public TargetConfig withPortals(List<Portal> portals) {
        if (portals.isEmpty()) {
            throw new IllegalArgumentException("at least one portal is needed");
        }
        Set<String> seen = new HashSet<>();
        for (Portal p : portals) {
            if (!seen.add(p.toString().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("duplicate portal " + p);
            }
        }
        return new TargetConfig(daemon, portals, iscsi, targets, cache, numa);
    }

    /**
     * This configuration with another data directory (the {@code --data-dir} override). LUN paths
     * that lay under the old data directory move with it; paths elsewhere stay as they are.
     */
    public TargetConfig withDataDir(Path dataDir) {
        Path newDir = dataDir.toAbsolutePath().normalize();
        Path oldDir = daemon.dataDir();
        List<TargetDefinition> moved = new ArrayList<>(targets.size());
        for (TargetDefinition t : targets) {
            List<LunDefinition> luns = new ArrayList<>(t.luns().size());
            for (LunDefinition l : t.luns()) {
                Path p = l.path();
                if (p != null && p.startsWith(oldDir)) {
                    p = newDir.resolve(oldDir.relativize(p)).normalize();
                }
                luns.add(new LunDefinition(l.id(), l.backing(), p, l.sizeBytes(), l.blockSize(), l.serial()));
            }
            moved.add(new TargetDefinition(t.name(), t.alias(), t.allowedInitiators(), luns));
        }
        return new TargetConfig(new DaemonSettings(newDir, daemon.ioThreads(), daemon.eventModel()), portals, iscsi, moved, cache, numa);
    }

    /** The target with this iSCSI name (case-insensitive), or null. */
    public TargetDefinition target(String name) {
        for (TargetDefinition t : targets) {
            if (t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        return null;
    }
}
