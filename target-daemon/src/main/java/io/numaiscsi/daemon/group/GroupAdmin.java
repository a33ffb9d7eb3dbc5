package io.numaiscsi.daemon.group;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.GroupPlacement;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegistryOperation;
import io.numaiscsi.rbd.ImageOwnership;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin API of a gateway group member: every change to targets and LUNs goes to the group (so every member
 * applies it), plus the group's own requests: its status (members, their health, who owns and who serves each LUN),
 * moving a LUN, rebalancing, removing a member, and writing this member's configuration back over a corrupt one.
 * Refusals are {@link IllegalArgumentException}s, failures {@link IOException}s, both with a plain reason.
 */
public final class GroupAdmin {
    /** How long a change waits for the other members that are up to serve it before it returns anyway. */
    static final Duration MEMBERS_WAIT = Duration.ofSeconds(10);
    /** How long a move waits to see the new owner serve the LUN. */
    static final Duration MOVE_WAIT = GroupMember.RELEASE_WAIT.plusSeconds(20);

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final GroupMember member;
    private final GroupChanges changes;

    public GroupAdmin(GroupMember member) {
        this.member = member;
        this.changes = new GroupChanges(member);
    }

    /** One admin request's registry operations, as one change of the group. */
    public JsonNode change(List<RegistryOperation> ops) throws IOException {
        long v = changes.change(GroupEdits.of(ops, member.object()::imageSize));
        return applied(changes.awaitMembers(v, MEMBERS_WAIT));
    }

    /** {@code lun} of {@code target} owned by {@code to} from now; returns once it serves it (or says it does not). */
    public JsonNode move(String target, int lun, String to) throws IOException {
        GroupPlacement.LunRef ref = new GroupPlacement.LunRef(target, lun);
        long v = changes.change(d -> {
            requireLun(d, ref);
            GroupDocument.Member m = d.member(to);
            if (m == null) {
                throw new IllegalArgumentException(to + " is not a member of the group (members: " + names(d) + ")");
            }
            return GroupPlacement.move(d, ref, to);
        });
        int port = member.document().member(to).port();
        ImageOwnership image = member.onThread(() -> member.servedImages().get(ref), MEMBERS_WAIT);
        long deadline = System.nanoTime() + MOVE_WAIT.toNanos();
        while (image != null && image.ownerGroup() != port && System.nanoTime() < deadline) {
            sleep();
        }
        ObjectNode r = applied(changes.awaitMembers(v, MEMBERS_WAIT));
        r.put("lun", ref.toString()).put("owner", to);
        r.put("served_by", image == null ? null : memberAt(member.document(), image.ownerGroup()));
        return r;
    }

    /** Spreads the LUNs evenly over the members that are up, moving as few as it can. */
    public JsonNode rebalance() throws IOException {
        Map<GroupPlacement.LunRef, String> servedBy = servedBy();
        List<String> up = new ArrayList<>();
        long v = changes.change(d -> {
            Map<String, GroupHealth> health = member.health(d);
            up.clear();
            d.members().stream()
                    .filter(m -> GroupMember.up(health.get(m.name())))
                    .forEach(m -> up.add(m.name()));
            if (up.isEmpty()) {
                throw new IllegalArgumentException("no member is up (none told its health in the last "
                        + GroupMember.UP_WITHIN.toSeconds() + " s)");
            }
            return GroupPlacement.rebalance(d, up, servedBy);
        });
        ObjectNode r = applied(changes.awaitMembers(v, MEMBERS_WAIT));
        ArrayNode over = r.putArray("over");
        up.forEach(over::add);
        return r;
    }

    /** Takes {@code name} out of the group; the LUNs it owned go to the others. */
    public JsonNode removeMember(String name) throws IOException {
        long v = changes.change(d -> {
            if (d.member(name) == null) {
                throw new IllegalArgumentException(name + " is not a member of the group (members: " + names(d) + ")");
            }
            return GroupPlacement.withoutMember(d, name);
        });
        return applied(changes.awaitMembers(v, MEMBERS_WAIT)).put("removed", name);
    }

    /** Writes the configuration this member serves over the group's (which it refused, say, as corrupt). */
    public JsonNode restore() throws IOException {
        long v = changes.restore(member.document());
        return applied(changes.awaitMembers(v, MEMBERS_WAIT));
    }

    /** The group as this member sees it. */
    public JsonNode status() throws IOException {
        GroupDocument d = member.document();
        ObjectNode r = JSON.objectNode();
        r.put("group", member.settings().name())
                .put("member", member.settings().member())
                .put("object", member.describe())
                .put("fsid", member.fsid())
                .put("version", member.version())
                .put("placement", d.placement());
        if (member.problem() != null) {
            r.put("problem", member.problem());
        }
        Map<String, GroupHealth> health = member.health(d);
        ArrayNode members = r.putArray("members");
        for (GroupDocument.Member m : d.members()) {
            GroupHealth h = health.get(m.name());
            ObjectNode o = members.addObject()
                    .put("name", m.name())
                    .put("port", m.port())
                    .put("up", GroupMember.up(h));
            if (h != null) {
                o.put("seen_seconds_ago", Math.max(0, (System.currentTimeMillis() - h.time()) / 1000))
                        .put("version", h.applied());
                if (h.problem() != null) {
                    o.put("problem", h.problem());
                }
            }
        }
        Map<GroupPlacement.LunRef, String> servedBy = servedBy();
        ArrayNode luns = r.putArray("luns");
        for (TargetDefinition t : d.targets()) {
            for (LunDefinition lun : t.luns()) {
                GroupPlacement.LunRef ref = new GroupPlacement.LunRef(t.name(), lun.id());
                luns.addObject()
                        .put("target", t.name())
                        .put("lun", lun.id())
                        .put("image", lun.rbd().pool() + "/" + lun.rbd().image())
                        .put("owner", lun.rbd().owner())
                        .put("served_by", servedBy.get(ref));
            }
        }
        return r;
    }

    /** Which member holds each LUN's image lock now, as this member last learned it (null: nobody). */
    private Map<GroupPlacement.LunRef, String> servedBy() throws IOException {
        GroupDocument d = member.document();
        Map<GroupPlacement.LunRef, ImageOwnership> images = member.onThread(member::servedImages, MEMBERS_WAIT);
        Map<GroupPlacement.LunRef, String> out = new HashMap<>();
        images.forEach((ref, image) -> out.put(ref, memberAt(d, image.ownerGroup())));
        return out;
    }

    private static String memberAt(GroupDocument d, int port) {
        return d.members().stream()
                .filter(m -> m.port() == port)
                .map(GroupDocument.Member::name)
                .findFirst()
                .orElse(null);
    }

    private static void requireLun(GroupDocument d, GroupPlacement.LunRef ref) {
        if (GroupPlacement.luns(d).stream().noneMatch(ref::equals)) {
            throw new IllegalArgumentException("the group has no " + ref);
        }
    }

    private static String names(GroupDocument d) {
        return String.join(
                ", ", d.members().stream().map(GroupDocument.Member::name).toList());
    }

    private ObjectNode applied(GroupChanges.Outcome o) {
        ObjectNode r = JSON.objectNode().put("version", o.version());
        ObjectNode by = r.putObject("members");
        o.appliedBy()
                .forEach((name, v) ->
                        by.put(name, v < 0 ? "down" : v >= o.version() ? "applied" : "not yet (at version " + v + ")"));
        return r;
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }
}
