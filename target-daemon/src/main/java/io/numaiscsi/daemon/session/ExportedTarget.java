package io.numaiscsi.daemon.session;

import io.numaiscsi.config.NetworkRange;
import io.numaiscsi.scsi.ScsiTarget;
import java.net.InetAddress;
import java.util.List;

/**
 * One iSCSI target as the session layer sees it: its name, who may log in (initiator names and source networks,
 * empty lists meaning anyone), the CHAP account its logins need (null: none), and its LUNs.
 */
public record ExportedTarget(String name, String alias, List<String> allowedInitiators, ScsiTarget scsi,
                             ChapAccount chap, List<NetworkRange> allowNetworks) {

    public ExportedTarget {
        allowedInitiators = List.copyOf(allowedInitiators);
        allowNetworks = List.copyOf(allowNetworks);
    }

    /** An open target: no CHAP, any network. */
    public ExportedTarget(String name, String alias, List<String> allowedInitiators, ScsiTarget scsi) {
        this(name, alias, allowedInitiators, scsi, null, List.of());
    }

    public boolean allows(String initiatorName) {
        if (allowedInitiators.isEmpty()) {
            return true;
        }
        for (String allowed : allowedInitiators) {
            if (allowed.equalsIgnoreCase(initiatorName)) {
                return true;
            }
        }
        return false;
    }

    /** Whether an initiator at this address may log in; an unknown address (null) only when any network may. */
    public boolean allowsAddress(InetAddress address) {
        if (allowNetworks.isEmpty()) {
            return true;
        }
        for (NetworkRange n : allowNetworks) {
            if (n.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
