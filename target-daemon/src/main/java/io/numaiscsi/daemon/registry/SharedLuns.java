package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.AluaDefinition;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.daemon.cluster.RbdUnitOwnership;
import io.numaiscsi.daemon.cluster.VersionedObject;
import io.numaiscsi.rbd.ImageOwnership;
import io.numaiscsi.rbd.RbdBlockDevice;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.TargetPortGroups;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What a LUN several gateways export needs: the ports its peers may use, and its RBD image's lock among them. */
final class SharedLuns {
    private SharedLuns() {}

    /**
     * The relative target ports of the gateways that share the target with this one: the peers' groups' ports, or, in a
     * gateway group ({@code member} not null), every member's port but this one's, since members come and go while the
     * LUN serves.
     */
    static List<Integer> peerPorts(TargetPortGroups groups, String member) {
        List<Integer> peerPorts = new ArrayList<>();
        if (member == null) {
            groups.peers().forEach(g -> peerPorts.addAll(g.ports()));
        } else {
            for (int port = 1; port <= GroupDocument.MAX_MEMBERS; port++) {
                if (port != groups.localPort()) {
                    peerPorts.add(port);
                }
            }
        }
        return peerPorts;
    }

    /**
     * An RBD image the target's gateways share (ALUA): one gateway at a time holds its exclusive lock and writes it;
     * the configured active/optimized gateway (in a gateway group: the LUN's owner) takes a free lock at start. Every
     * client of this gateway is recorded in
     * the shared reservations' object before it may take the lock, so a peer can fence it.
     */
    static AutoCloseable shareImage(
            AluaDefinition alua,
            LunDefinition lun,
            RbdBlockDevice rbd,
            LogicalUnit unit,
            VersionedObject sharedObject,
            String what,
            String member)
            throws IOException {
        boolean preferred = lun.rbd().owner() != null
                ? lun.rbd().owner().equals(member)
                : TargetPortGroups.AccessState.ACTIVE_OPTIMIZED.configName().equals(alua.state());
        ImageOwnership.ClientRecorder recorder =
                sharedObject == null ? ImageOwnership.ClientRecorder.NONE : sharedObject::fenceWith;
        // a fenced gateway's commands fail within the client's operation timeout; wait that long and a little more
        Duration drain = lun.rbd().timeout().plusSeconds(10);
        ImageOwnership owner = ImageOwnership.start(rbd, alua.group(), preferred, drain, recorder);
        RbdUnitOwnership ownership = new RbdUnitOwnership(owner, what);
        unit.ownership(ownership);
        return ownership;
    }
}
