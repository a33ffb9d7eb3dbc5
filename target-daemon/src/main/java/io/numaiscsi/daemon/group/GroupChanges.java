package io.numaiscsi.daemon.group;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Changes to a gateway group's configuration, made through any member: the member reads the newest version, edits it,
 * checks the whole result as every member will read it, and writes it with that version asserted; when another member
 * wrote first, it reads again and edits that (so two changes at once both land, one after the other, or the second is
 * refused with its reason, never a mix). The change returns once this member serves it.
 */
final class GroupChanges {
    /** How many times a change is tried again after another member changed the group first. */
    static final int ATTEMPTS = 20;

    private static final Duration APPLY_TIMEOUT = Duration.ofSeconds(90);

    /** An edit of the newest version; throws {@link IllegalArgumentException} with the reason to refuse it. */
    interface Edit {
        GroupDocument apply(GroupDocument current) throws IOException;
    }

    /** The version written and what each member served when the change returned. */
    record Outcome(long version, Map<String, Long> appliedBy) {}

    private final GroupMember member;

    GroupChanges(GroupMember member) {
        this.member = member;
    }

    /**
     * Writes {@code edit} of the newest version; returns once this member serves it.
     *
     * @throws IOException the group's configuration cannot be read, or the change was refused
     */
    long change(Edit edit) throws IOException {
        GroupObject object = member.object();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            GroupObject.Text t = object.read();
            if (t.version() == RadosObject.ABSENT) {
                throw new IOException("the gateway group's configuration " + member.describe() + " is gone; restart a"
                        + " member to make it again, or run numa-iscsi-admin group restore");
            }
            GroupDocument current = member.parse(t);
            GroupDocument next = edit.apply(current);
            String text = next.write(member.codec());
            try {
                GroupDocument.parse(text, member.describe(), member.codec()); // as every member will read it
            } catch (ConfigException e) {
                throw new IllegalArgumentException(e.getMessage().replace(member.describe() + ":", "the result:"));
            }
            long v = object.replace(text, t.version());
            if (v != RadosObject.LOST) {
                member.applyNow(APPLY_TIMEOUT);
                return v;
            }
        }
        throw new IOException("the gateway group's configuration kept changing under this change (" + ATTEMPTS
                + " attempts); try again");
    }

    /**
     * Writes {@code doc} over whatever version is there (a corrupt one too): this member's last good configuration
     * back in the cluster.
     */
    long restore(GroupDocument doc) throws IOException {
        GroupObject object = member.object();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            long seen = object.read().version();
            long v = object.replace(doc.write(member.codec()), seen);
            if (v != RadosObject.LOST) {
                member.applyNow(APPLY_TIMEOUT);
                return v;
            }
        }
        throw new IOException("the gateway group's configuration kept changing; try again");
    }

    /**
     * Waits up to {@code limit} until every member that is up serves at least {@code version}; what each served then
     * (-1: down or never told).
     */
    Outcome awaitMembers(long version, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            Map<String, Long> applied = new LinkedHashMap<>();
            boolean all = true;
            for (Map.Entry<String, GroupHealth> e :
                    member.health(member.document()).entrySet()) {
                GroupHealth h = e.getValue();
                long v = GroupMember.up(h) ? h.applied() : -1;
                applied.put(e.getKey(), v);
                all &= v == -1 || v >= version;
            }
            if (all || System.nanoTime() > deadline) {
                return new Outcome(version, applied);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome(version, applied);
            }
        }
    }
}
