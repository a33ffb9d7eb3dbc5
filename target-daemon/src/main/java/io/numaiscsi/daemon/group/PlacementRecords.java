package io.numaiscsi.daemon.group;

import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.GroupPlacement;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the group's placement true to where the LUNs are served, on the group's thread: records as owner the member an
 * initiator moved a LUN to (so a later placement does not pull it back), and gives the LUNs of members that are down to
 * members that are up. Each record is one placement, written only over the placement it was decided on.
 */
final class PlacementRecords {
    private static final Logger LOG = LoggerFactory.getLogger(GroupMember.class);
    private static final int ATTEMPTS = 3;

    private final GroupMember member;

    PlacementRecords(GroupMember member) {
        this.member = member;
    }

    /**
     * An initiator's SET TARGET PORT GROUPS made this member take {@code lun} while it served {@code placement}: this
     * member is its owner from now, unless the placement changed since (a move decided after it wins).
     */
    void initiatorMovedHere(GroupPlacement.LunRef lun, long placement) {
        String me = member.settings().member();
        try {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                GroupObject.Text t = member.object().read();
                GroupDocument latest = member.parse(t);
                if (latest.placement() != placement || me.equals(GroupPlacement.ownerOf(latest, lun))) {
                    return;
                }
                long v = member.object()
                        .replace(GroupPlacement.move(latest, lun, me).write(member.codec()), t.version());
                if (v != RadosObject.LOST) {
                    LOG.info(
                            "gateway group {}: an initiator moved {} to this gateway; it is its owner now",
                            member.settings().name(),
                            lun);
                    member.applyNewer();
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "gateway group {}: cannot record this gateway as the owner of {}, which an initiator moved here: {}",
                    member.settings().name(),
                    lun,
                    e.getMessage());
        }
    }

    /**
     * On the member with the lowest port among those up: gives the LUNs of members that are down (no health for
     * {@link GroupMember#UP_WITHIN}: dead, stalled or cut off) to members that are up, the one serving it already where
     * an initiator moved it, so every LUN has an owner that serves it; the new owner fences the old one when it takes
     * the image. A member that comes back owns nothing of it until a rebalance or a move.
     */
    void replaceDownOwners() {
        try {
            GroupDocument d = member.document();
            Map<String, GroupHealth> health = member.health(d);
            List<String> up = d.members().stream()
                    .filter(m -> GroupMember.up(health.get(m.name())))
                    .sorted(Comparator.comparingInt(GroupDocument.Member::port))
                    .map(GroupDocument.Member::name)
                    .toList();
            if (up.isEmpty() || !up.get(0).equals(member.settings().member())) {
                return;
            }
            Map<GroupPlacement.LunRef, String> servedBy = new HashMap<>();
            member.servedImages()
                    .forEach((ref, image) -> d.members().stream()
                            .filter(m -> m.port() == image.ownerGroup())
                            .findFirst()
                            .ifPresent(m -> servedBy.put(ref, m.name())));
            Map<GroupPlacement.LunRef, String> owners = GroupPlacement.ownersInPlaceOfDown(d, up, servedBy);
            if (owners.isEmpty()) {
                return;
            }
            long v = member.object().replace(GroupPlacement.moveAll(d, owners).write(member.codec()), member.version());
            if (v != RadosObject.LOST) {
                LOG.warn(
                        "gateway group {}: members {} are down (no health for {} s): their LUNs now belong to {}",
                        member.settings().name(),
                        d.members().stream()
                                .map(GroupDocument.Member::name)
                                .filter(n -> !up.contains(n))
                                .toList(),
                        GroupMember.UP_WITHIN.toSeconds(),
                        owners);
                member.applyNewer();
            }
        } catch (IOException | RuntimeException e) {
            member.note("cannot look for LUNs of members that are down: " + e.getMessage());
        }
    }
}
