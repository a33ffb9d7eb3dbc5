package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.AluaDefinition;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.config.TargetDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A config as registry operations: the whole of it at start, or what changed between two at a reload. */
public final class ConfigOperations {

    /** Operations and, for a reload, the changes they do not cover (applied only by a restart). */
    public record Plan(List<RegistryOperation> operations, List<String> needRestart) {}

    private ConfigOperations() {}

    /** Every target, then each of its LUNs, in file order. */
    public static List<RegistryOperation> of(TargetConfig config) {
        List<RegistryOperation> ops = new ArrayList<>();
        for (TargetDefinition t : config.targets()) {
            addTarget(t, ops);
        }
        return ops;
    }

    /**
     * What turns {@code running} into {@code wanted}: new targets and LUNs are added, targets and LUNs gone from the
     * file removed (removals first, so a LUN id or a file can move to a new store), changed access rules, CHAP or
     * alias applied to new logins, changed LUN maps and another gateway group member's port groups applied at once. A changed LUN definition (but
     * for a group LUN's owner), portals and settings are listed as needing a restart.
     */
    public static Plan diff(TargetConfig running, TargetConfig wanted) {
        List<RegistryOperation> removals = new ArrayList<>();
        List<RegistryOperation> additions = new ArrayList<>();
        List<RegistryOperation> lastly = new ArrayList<>();
        List<String> needRestart = new ArrayList<>();
        Map<String, TargetDefinition> before = byName(running);
        Map<String, TargetDefinition> after = byName(wanted);
        for (TargetDefinition t : running.targets()) {
            if (!after.containsKey(t.name())) {
                removals.add(new RegistryOperation.RemoveTarget(t.name()));
            }
        }
        for (TargetDefinition t : wanted.targets()) {
            TargetDefinition old = before.get(t.name());
            if (old == null) {
                addTarget(t, additions);
                continue;
            }
            if (!sameTargetSettings(old, t)) {
                additions.add(new RegistryOperation.UpdateTarget(t));
            }
            if (!Objects.equals(old.sharedReservations(), t.sharedReservations())) {
                needRestart.add("target " + t.name() + " shared-reservations changed");
            }
            if (peersOnlyChanged(old.alua(), t.alua())) {
                lastly.add(new RegistryOperation.SetPortGroups(t.name(), t.alua()));
            } else if (!Objects.equals(old.alua(), t.alua())) {
                needRestart.add("target " + t.name() + " alua changed (its port groups and TPGT are fixed while it "
                        + "serves)");
            }
            Map<Integer, LunDefinition> oldLuns = byId(old);
            Map<Integer, LunDefinition> newLuns = byId(t);
            for (LunDefinition lun : old.luns()) {
                if (!newLuns.containsKey(lun.id())) {
                    removals.add(new RegistryOperation.RemoveLun(t.name(), lun.id()));
                }
            }
            for (LunDefinition lun : t.luns()) {
                LunDefinition was = oldLuns.get(lun.id());
                if (was == null) {
                    additions.add(new RegistryOperation.AddLun(t.name(), lun));
                } else if (!withoutOwner(was).equals(withoutOwner(lun))) {
                    needRestart.add("target " + t.name() + " LUN " + lun.id()
                            + " changed (remove it, reload, add it back " + "to apply without a restart)");
                }
            }
            if (!old.lunMaps().equals(t.lunMaps())) {
                lastly.add(new RegistryOperation.SetLunMaps(t.name(), t.lunMaps())); // after the LUNs they name exist
            }
        }
        if (!running.portals().equals(wanted.portals())
                || !running.iscsi().equals(wanted.iscsi())
                || !running.limits().equals(wanted.limits())
                || !running.cache().equals(wanted.cache())
                // a reload applies daemon.log-level itself (Main)
                || !running.daemon().withLogLevel(null).equals(wanted.daemon().withLogLevel(null))
                || !running.numa().equals(wanted.numa())
                || !running.initiators().equals(wanted.initiators())
                || !Objects.equals(running.discoveryChap(), wanted.discoveryChap())) {
            needRestart.add("portals, iscsi, limits, cache, numa, daemon, initiators or discovery settings changed");
        }
        List<RegistryOperation> ops = new ArrayList<>(removals);
        ops.addAll(additions);
        ops.addAll(lastly);
        return new Plan(ops, needRestart);
    }

    private static void addTarget(TargetDefinition t, List<RegistryOperation> ops) {
        ops.add(new RegistryOperation.AddTarget(t));
        for (LunDefinition lun : t.luns()) {
            ops.add(new RegistryOperation.AddLun(t.name(), lun));
        }
    }

    /** A gateway group's member joined or left: this gateway's port and group are the same, the others are not. */
    private static boolean peersOnlyChanged(AluaDefinition a, AluaDefinition b) {
        return a != null
                && b != null
                && a.port() == b.port()
                && a.group() == b.group()
                && a.state().equals(b.state())
                && !a.peers().equals(b.peers());
    }

    /** A group LUN's owner moves without reopening it (the group's placement does that). */
    private static LunDefinition withoutOwner(LunDefinition lun) {
        return lun.rbd() == null || lun.rbd().owner() == null
                ? lun
                : lun.withRbd(lun.rbd().withOwner(null));
    }

    private static boolean sameTargetSettings(TargetDefinition a, TargetDefinition b) {
        return Objects.equals(a.alias(), b.alias())
                && a.access().equals(b.access())
                && Objects.equals(a.chap(), b.chap());
    }

    private static Map<String, TargetDefinition> byName(TargetConfig c) {
        Map<String, TargetDefinition> m = new HashMap<>();
        for (TargetDefinition t : c.targets()) {
            m.put(t.name(), t);
        }
        return m;
    }

    private static Map<Integer, LunDefinition> byId(TargetDefinition t) {
        Map<Integer, LunDefinition> m = new HashMap<>();
        for (LunDefinition lun : t.luns()) {
            m.put(lun.id(), lun);
        }
        return m;
    }
}
