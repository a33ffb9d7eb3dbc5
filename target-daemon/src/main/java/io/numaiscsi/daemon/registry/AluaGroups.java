package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.AluaDefinition;
import io.numaiscsi.scsi.TargetPortGroups;
import io.numaiscsi.scsi.TargetPortGroups.AccessState;
import io.numaiscsi.scsi.TargetPortGroups.Group;
import java.util.ArrayList;
import java.util.List;

/** A target's {@code alua:} configuration as the SCSI layer's {@link TargetPortGroups}. */
final class AluaGroups {
    private AluaGroups() {}

    /** {@link TargetPortGroups#NONE} for null (no {@code alua:} key); the config checked names and ids already. */
    static TargetPortGroups of(AluaDefinition alua) {
        if (alua == null) {
            return TargetPortGroups.NONE;
        }
        List<Group> peers = new ArrayList<>();
        for (AluaDefinition.Peer p : alua.peers()) {
            peers.add(new Group(p.group(), state(p.state()), p.ports()));
        }
        return TargetPortGroups.of(
                alua.port(), new Group(alua.group(), state(alua.state()), List.of(alua.port())), peers);
    }

    private static AccessState state(String configName) {
        AccessState s = AccessState.byConfigName(configName);
        if (s == null) {
            throw new IllegalArgumentException("unknown ALUA state " + configName);
        }
        return s;
    }
}
