package io.numaiscsi.daemon.session;

import io.numaiscsi.scsi.ScsiTarget;
import java.util.List;

/** One iSCSI target as the session layer sees it: its name, who may log in, and its LUNs. */
public record ExportedTarget(String name, String alias, List<String> allowedInitiators, ScsiTarget scsi) {
    public boolean allows(String initiatorName) {
        return allowedInitiators.isEmpty() || allowedInitiators.contains(initiatorName);
    }
}
