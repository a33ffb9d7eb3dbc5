package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The targets one member of a gateway group serves: the group's, each with this member's ALUA target port (its port in
 * the group, a target port group of its own, every other member's group as a peer), its persistent reservations shared
 * in the group's pool, and its RBD LUNs reached with this member's own Ceph credentials.
 */
public final class GroupTargets {
    private static final String STANDBY = "standby";

    private GroupTargets() {}

    /** What {@code me} serves of {@code doc}; none when it is not (or no longer) a member. */
    public static List<TargetDefinition> forMember(GroupDocument doc, GroupSettings me) {
        GroupDocument.Member self = doc.member(me.member());
        if (self == null) {
            return List.of();
        }
        List<AluaDefinition.Peer> peers = new ArrayList<>();
        for (GroupDocument.Member m : doc.members()) {
            if (m.port() != self.port()) {
                peers.add(new AluaDefinition.Peer(m.port(), STANDBY, List.of(m.port())));
            }
        }
        // the access states come from the images' locks; standby is what a group is in until its member holds one
        AluaDefinition alua = new AluaDefinition(self.port(), self.port(), STANDBY, peers);
        SharedReservationsDefinition reservations =
                SharedReservationsDefinition.rados(me.pool(), me.cephConf(), me.user(), me.keyring());
        List<TargetDefinition> out = new ArrayList<>();
        for (TargetDefinition t : doc.targets()) {
            List<LunDefinition> luns = new ArrayList<>();
            for (LunDefinition lun : t.luns()) {
                RbdSource r = lun.rbd();
                luns.add(lun.withRbd(r.reachedWith(me.cephConf(), me.user(), me.keyring(), r.timeout())));
            }
            out.add(new TargetDefinition(
                    t.name(),
                    t.alias(),
                    t.allowedInitiators(),
                    luns,
                    t.chap(),
                    t.allowNetworks(),
                    alua,
                    reservations,
                    t.lunMaps()));
        }
        return out;
    }

    /** The group's form of a target a member serves: without what each member adds. */
    public static TargetDefinition shared(TargetDefinition served) {
        return new TargetDefinition(
                served.name(),
                served.alias(),
                served.allowedInitiators(),
                served.luns(),
                served.chap(),
                served.allowNetworks(),
                null,
                null,
                served.lunMaps());
    }
}
