package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a gateway group keeps in its object in the cluster: the format, the cluster it belongs to, its members and
 * the targets every member serves. Its targets are a config file's, with RBD LUNs only (every member reaches the same
 * images), each with its preferred {@code owner} member; who may log in, CHAP (secrets encrypted: {@link
 * GroupSecretCodec}) and LUN maps as in a file. Each member adds what is its own: ALUA (its port among the members'),
 * shared reservations and the credentials it reaches the cluster with.
 * <pre>
 * group-format: 1
 * fsid: 5b3c4a1e-...
 * placement: 3        # counts the moves and rebalances: members act on the owners when it changes
 * members: [{name: gw1, port: 1}, {name: gw2, port: 2}]
 * targets: [...]
 * </pre>
 */
public record GroupDocument(
        int format, String fsid, long placement, List<Member> members, List<TargetDefinition> targets) {
    /** The format this version writes and reads; a newer one is refused. */
    public static final int FORMAT = 1;
    /** Members' ports are 1..this: a gateway fencing a silent peer looks its clients up under each. */
    public static final int MAX_MEMBERS = 16;

    private static final List<String> KEYS =
            List.of("group-format", "fsid", "placement", "members", TargetsSection.KEY);
    private static final List<String> MEMBER_KEYS = List.of("name", "port");
    /** LUN paths are never read for RBD LUNs; relative ceph-conf / keyring keys are refused instead. */
    private static final Path NO_DATA_DIR = Path.of("/");

    /** One gateway of the group: its name and its relative target port (and ALUA target port group). */
    public record Member(String name, int port) {
        public Member {
            Objects.requireNonNull(name, "name");
        }
    }

    public GroupDocument {
        Objects.requireNonNull(fsid, "fsid");
        members = List.copyOf(members);
        targets = List.copyOf(targets);
    }

    /** A new group of the cluster {@code fsid}, without members or targets. */
    public static GroupDocument empty(String fsid) {
        return new GroupDocument(FORMAT, fsid, 0, List.of(), List.of());
    }

    public Member member(String name) {
        for (Member m : members) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        return null;
    }

    public GroupDocument withMembers(List<Member> newMembers) {
        return new GroupDocument(format, fsid, placement, newMembers, targets);
    }

    public GroupDocument withTargets(List<TargetDefinition> newTargets) {
        return new GroupDocument(format, fsid, placement, members, newTargets);
    }

    /** This document with new owners: {@link #placement} counts one more placement the members act on. */
    public GroupDocument placed(List<TargetDefinition> newTargets) {
        return new GroupDocument(format, fsid, placement + 1, members, newTargets);
    }

    /**
     * Reads the object's text; secrets with {@code codec}.
     *
     * @throws ConfigException what is wrong, with the line and key: a newer format, a LUN that is not an RBD image, an
     *                         owner that is no member, a member or port twice
     */
    public static GroupDocument parse(String text, String sourceName, SecretCodec codec) throws ConfigException {
        Node root = LocatedTreeReader.read(text, sourceName);
        Fields top = Cursor.root(sourceName, root).fields(KEYS);
        Cursor formatAt = top.required("group-format");
        int format = formatAt.integer(1, Integer.MAX_VALUE);
        if (format > FORMAT) {
            throw formatAt.error("is " + format + ": the group was written by a newer version of numa-iscsi-target"
                    + " (this one reads format " + FORMAT + "); upgrade this gateway");
        }
        String fsid = top.required("fsid").text();
        Cursor placementAt = top.optional("placement");
        long placement = placementAt == null ? 0 : placementAt.integer(0, Integer.MAX_VALUE);
        List<Member> members = new ArrayList<>();
        Map<String, Cursor> names = new HashMap<>();
        Map<Integer, Cursor> ports = new HashMap<>();
        Cursor membersAt = top.optional("members");
        if (membersAt != null) {
            for (Cursor item : membersAt.list()) {
                Fields m = item.fields(MEMBER_KEYS);
                Cursor nameAt = m.required("name");
                String name = nameAt.text();
                Cursor portAt = m.required("port");
                int port = portAt.integer(1, MAX_MEMBERS);
                if (names.putIfAbsent(name, nameAt) != null) {
                    throw nameAt.error("member " + name + " is listed twice");
                }
                if (ports.putIfAbsent(port, portAt) != null) {
                    throw portAt.error("port " + port + " belongs to two members");
                }
                members.add(new Member(name, port));
            }
        }
        List<TargetDefinition> targets = TargetsSection.readList(top, NO_DATA_DIR, new ChapSection.Secrets(codec));
        Cursor targetsAt = top.optional(TargetsSection.KEY);
        for (int i = 0; i < targets.size(); i++) {
            TargetDefinition t = targets.get(i);
            Cursor tAt = targetsAt.list().get(i);
            if (t.alua() != null || t.sharedReservations() != null) {
                throw tAt.error("target " + t.name() + " has alua or shared-reservations: in a gateway group each"
                        + " member sets them itself");
            }
            for (LunDefinition lun : t.luns()) {
                if (lun.backing() != BackingType.RBD) {
                    throw tAt.error("target " + t.name() + " LUN " + lun.id() + " is "
                            + lun.backing().name().toLowerCase(Locale.ROOT)
                            + ": a gateway group serves RBD images only (every"
                            + " member must reach the same store)");
                }
                if (lun.rbd().numaCache()) {
                    throw tAt.error("target " + t.name() + " LUN " + lun.id() + " has numa-cache: the gateways of a"
                            + " group share the image, so a cache would serve data another member has overwritten");
                }
                String owner = lun.rbd().owner();
                if (owner != null && !names.containsKey(owner)) {
                    throw tAt.error("target " + t.name() + " LUN " + lun.id() + " is owned by " + owner + ", which is"
                            + " not a member");
                }
            }
        }
        return new GroupDocument(format, fsid, placement, members, targets);
    }

    /** The object's text; secrets with {@code codec}. */
    public String write(SecretCodec codec) {
        StringBuilder s = new StringBuilder();
        s.append("# numa-iscsi-target gateway group; change it with numa-iscsi-admin on any member\n");
        s.append("group-format: ").append(format).append('\n');
        s.append("fsid: ").append(YamlText.scalar(fsid)).append('\n');
        s.append("placement: ").append(placement).append('\n');
        if (members.isEmpty()) {
            s.append("members: []\n");
        } else {
            s.append("members:\n");
            for (Member m : members) {
                s.append("  - {name: ")
                        .append(m.name())
                        .append(", port: ")
                        .append(m.port())
                        .append("}\n");
            }
        }
        s.append(ConfigWriter.writeTargets(targets, NO_DATA_DIR, codec));
        return s.toString();
    }
}
