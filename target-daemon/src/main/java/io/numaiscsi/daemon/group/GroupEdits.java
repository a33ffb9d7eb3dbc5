package io.numaiscsi.daemon.group;

import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.GroupPlacement;
import io.numaiscsi.config.GroupTargets;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.RbdSource;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegistryOperation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The admin API's changes as edits of a gateway group's configuration. A LUN is kept as the group shares it: its
 * image and settings, without the Ceph credentials (each member reaches the cluster its own way); a new LUN without an
 * owner goes to the member owning the fewest, and its image must exist before the change is written.
 */
final class GroupEdits {
    /** Whether an image exists: throws why it cannot be served when it does not. */
    interface ImageCheck {
        void require(String pool, String image) throws IOException;
    }

    private GroupEdits() {}

    /** {@code ops} (one admin request: a target with its LUNs, or one change) as one edit. */
    static GroupChanges.Edit of(List<RegistryOperation> ops, ImageCheck images) {
        return current -> {
            GroupDocument d = current;
            for (RegistryOperation op : ops) {
                d = apply(d, op, images);
            }
            return d;
        };
    }

    private static GroupDocument apply(GroupDocument d, RegistryOperation op, ImageCheck images) throws IOException {
        if (op instanceof RegistryOperation.AddTarget a) {
            if (find(d, a.target().name()) != null) {
                throw new IllegalArgumentException(
                        "target " + a.target().name() + " exists already (another member" + " added it)");
            }
            List<TargetDefinition> targets = new ArrayList<>(d.targets());
            TargetDefinition t = GroupTargets.shared(a.target());
            targets.add(new TargetDefinition(
                    t.name(),
                    t.alias(),
                    t.allowedInitiators(),
                    List.of(),
                    t.chap(),
                    t.allowNetworks(),
                    null,
                    null,
                    t.lunMaps())); // its LUNs follow as AddLun
            return d.withTargets(targets);
        }
        if (op instanceof RegistryOperation.AddLun a) {
            TargetDefinition t = existing(d, a.target());
            if (t.lun(a.lun().id()) != null) {
                throw new IllegalArgumentException("target " + t.name() + " has a LUN "
                        + a.lun().id() + " already" + " (another member added it)");
            }
            LunDefinition lun = shared(d, a.lun(), images);
            List<LunDefinition> luns = new ArrayList<>(t.luns());
            luns.add(lun);
            return replace(d, t.withLuns(luns));
        }
        if (op instanceof RegistryOperation.RemoveLun r) {
            TargetDefinition t = existing(d, r.target());
            if (t.lun(r.lun()) == null) {
                throw new IllegalArgumentException(
                        "target " + t.name() + " has no LUN " + r.lun() + " (another member" + " removed it)");
            }
            return replace(
                    d,
                    t.withLuns(t.luns().stream().filter(l -> l.id() != r.lun()).toList()));
        }
        if (op instanceof RegistryOperation.RemoveTarget r) {
            existing(d, r.target());
            return d.withTargets(d.targets().stream()
                    .filter(t -> !t.name().equals(r.target()))
                    .toList());
        }
        if (op instanceof RegistryOperation.UpdateTarget u) {
            TargetDefinition t = existing(d, u.target().name());
            TargetDefinition n = u.target();
            return replace(
                    d,
                    new TargetDefinition(
                            t.name(),
                            n.alias(),
                            n.allowedInitiators(),
                            t.luns(),
                            n.chap(),
                            n.allowNetworks(),
                            null,
                            null,
                            t.lunMaps()));
        }
        if (op instanceof RegistryOperation.SetLunMaps m) {
            return replace(d, existing(d, m.target()).withLunMaps(m.maps()));
        }
        throw new IllegalArgumentException("cannot be done in a gateway group: " + op);
    }

    /** The LUN as the group keeps it, with an owner, after checking its image exists. */
    private static LunDefinition shared(GroupDocument d, LunDefinition lun, ImageCheck images) throws IOException {
        if (lun.backing() != BackingType.RBD) {
            throw new IllegalArgumentException(
                    "LUN " + lun.id() + " is backing: " + lun.backing().name().toLowerCase(Locale.ROOT)
                            + "; a gateway group serves RBD images only (backing: rbd), which every"
                            + " member reaches");
        }
        RbdSource r = lun.rbd();
        if (r.numaCache()) {
            throw new IllegalArgumentException("LUN " + lun.id() + " has numa-cache: the members of a group share the"
                    + " image, so a cache would serve data another member has overwritten");
        }
        String owner = r.owner();
        List<String> names =
                d.members().stream().map(GroupDocument.Member::name).toList();
        if (owner != null && d.member(owner) == null) {
            throw new IllegalArgumentException("LUN " + lun.id() + ": owner " + owner + " is not a member (members: "
                    + String.join(", ", names) + ")");
        }
        if (owner == null) {
            owner = GroupPlacement.leastLoaded(d, names);
        }
        images.require(r.pool(), r.image()); // refused here, before any member is asked to serve it
        RbdSource kept = new RbdSource(
                r.pool(),
                r.image(),
                RbdSource.DEFAULT_CEPH_CONF,
                RbdSource.DEFAULT_USER,
                null,
                r.timeout(),
                false,
                owner);
        return lun.withRbd(kept);
    }

    private static TargetDefinition find(GroupDocument d, String name) {
        return d.targets().stream()
                .filter(t -> t.name().equals(name))
                .findFirst()
                .orElse(null);
    }

    private static TargetDefinition existing(GroupDocument d, String name) {
        TargetDefinition t = find(d, name);
        if (t == null) {
            throw new IllegalArgumentException("the group has no target " + name + " (another member removed it)");
        }
        return t;
    }

    private static GroupDocument replace(GroupDocument d, TargetDefinition changed) {
        List<TargetDefinition> targets = new ArrayList<>();
        for (TargetDefinition t : d.targets()) {
            targets.add(t.name().equals(changed.name()) ? changed : t);
        }
        return d.withTargets(targets);
    }
}
