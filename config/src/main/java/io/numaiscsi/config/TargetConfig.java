package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The whole validated configuration. Build it with {@link ConfigLoader}. {@code group}: this gateway is a member of a
 * gateway group whose targets live in the cluster (null: the targets are this file's).
 */
public record TargetConfig(
        DaemonSettings daemon,
        List<Portal> portals,
        IscsiSettings iscsi,
        List<TargetDefinition> targets,
        CacheSettings cache,
        NumaSettings numa,
        LimitsSettings limits,
        ChapCredentials discoveryChap,
        List<InitiatorDefinition> initiators,
        GroupSettings group) {

    public TargetConfig {
        Objects.requireNonNull(daemon, "daemon");
        Objects.requireNonNull(iscsi, "iscsi");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(numa, "numa");
        Objects.requireNonNull(limits, "limits");
        portals = List.copyOf(portals);
        targets = List.copyOf(targets);
        initiators = List.copyOf(initiators);
    }

    /** This configuration listening on other portals (the {@code --portal} override). */
    public TargetConfig withPortals(List<Portal> portals) {
        if (portals.isEmpty()) {
            throw new IllegalArgumentException("at least one portal is needed");
        }
        Set<String> seen = new HashSet<>();
        for (Portal p : portals) {
            if (!seen.add(p.toString().toLowerCase(Locale.ROOT) + " " + p.transport())) {
                throw new IllegalArgumentException("duplicate portal " + p);
            }
        }
        return new TargetConfig(daemon, portals, iscsi, targets, cache, numa, limits, discoveryChap, initiators, group);
    }

    /** This configuration with other targets (what a running daemon serves after live changes), all else kept. */
    public TargetConfig withTargets(List<TargetDefinition> newTargets) {
        return new TargetConfig(
                daemon, portals, iscsi, newTargets, cache, numa, limits, discoveryChap, initiators, group);
    }

    /** This configuration with other discovery and per-initiator CHAP (the admin API's changes), all else kept. */
    public TargetConfig withChap(ChapCredentials newDiscoveryChap, List<InitiatorDefinition> newInitiators) {
        return new TargetConfig(
                daemon, portals, iscsi, targets, cache, numa, limits, newDiscoveryChap, newInitiators, group);
    }

    /** This configuration with other daemon settings (the {@code --event-model} override), all else kept. */
    public TargetConfig withDaemon(DaemonSettings newDaemon) {
        return new TargetConfig(
                newDaemon, portals, iscsi, targets, cache, numa, limits, discoveryChap, initiators, group);
    }

    /** The CHAP credentials of this initiator name ({@code initiators:}, case-insensitive), or null. */
    public ChapCredentials initiatorChap(String initiatorName) {
        for (InitiatorDefinition i : initiators) {
            if (i.name().equalsIgnoreCase(initiatorName)) {
                return i.chap();
            }
        }
        return null;
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
                luns.add(l.withPath(p));
            }
            moved.add(t.withLuns(luns));
        }
        return withDaemon(daemon.withDataDir(newDir)).withTargets(moved);
    }

    /** true when the configuration holds a CHAP secret: a target's, an initiator's or discovery's. */
    public boolean holdsSecrets() {
        return discoveryChap != null
                || !initiators.isEmpty()
                || targets.stream().anyMatch(t -> t.chap() != null);
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
