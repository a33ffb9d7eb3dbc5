package io.numaiscsi.session;

import io.numaiscsi.config.AccessList;
import io.numaiscsi.config.NetworkRange;
import io.numaiscsi.scsi.ScsiTarget;
import java.net.InetAddress;
import java.util.List;

/**
 * One iSCSI target as the session layer sees it: its name, who may log in (initiator names and source networks,
 * empty lists meaning anyone), the CHAP account its logins need (null: none), and its LUNs.
 */
public record ExportedTarget(String name, String alias, AccessList access, ScsiTarget scsi, ChapAccount chap) {

    public ExportedTarget(
            String name,
            String alias,
            List<String> allowedInitiators,
            ScsiTarget scsi,
            ChapAccount chap,
            List<NetworkRange> allowNetworks) {
        this(name, alias, new AccessList(allowedInitiators, allowNetworks), scsi, chap);
    }

    /** An open target: no CHAP, any network. */
    public ExportedTarget(String name, String alias, List<String> allowedInitiators, ScsiTarget scsi) {
        this(name, alias, allowedInitiators, scsi, null, List.of());
    }

    public boolean allows(String initiatorName) {
        return access.allows(initiatorName);
    }

    /** Whether an initiator at this address may log in; an unknown address (null) only when any network may. */
    public boolean allowsAddress(InetAddress address) {
        return access.allowsAddress(address);
    }

    /**
     * The target portal group tag its logins report and its nexuses carry: the ALUA port of its SCSI target when it
     * has one (each gateway of a pair its own), else {@code daemonDefault}.
     */
    public int targetPortalGroupTag(int daemonDefault) {
        return scsi == null ? daemonDefault : scsi.targetPortalGroupTag(daemonDefault);
    }

    public List<NetworkRange> allowNetworks() {
        return access.networks();
    }
}
