package io.numaiscsi.daemon.cluster;

import io.numaiscsi.config.SharedReservationsDefinition;
import io.numaiscsi.rbd.CephClient;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * Opens the versioned object a {@code shared-reservations:} definition names for one LUN, by its {@code backend}: the
 * file on a host's tmpfs ({@link LocalFileObject}) or a RADOS object watched for changes ({@link RadosVersionedObject}).
 */
public final class VersionedObjects {
    private VersionedObjects() {}

    /**
     * The object of LUN {@code lun} of target {@code target}; every gateway derives the same name. {@code localPort}
     * and {@code peerPorts} are the gateways' relative target ports (ALUA), under which each records its clients.
     */
    public static VersionedObject open(
            SharedReservationsDefinition d, String target, int lun, int localPort, List<Integer> peerPorts)
            throws IOException {
        String name = objectName(target, lun);
        return switch (d.backend()) {
            case SharedReservationsDefinition.FILE -> new LocalFileObject(d.directory(), name);
            case SharedReservationsDefinition.RADOS ->
                RadosVersionedObject.open(
                        new CephClient(d.cephConf(), d.user(), d.keyring(), CephClient.DEFAULT_TIMEOUT),
                        d.pool(),
                        name,
                        localPort,
                        peerPorts);
            default -> throw new IllegalArgumentException("no shared-reservations backend " + d.backend());
        };
    }

    /** {@code pr.<target name, lower case>.lun-<n>}: iSCSI names hold no '/', so the name is one path element. */
    static String objectName(String target, int lun) {
        return "pr." + target.toLowerCase(Locale.ROOT) + ".lun-" + lun;
    }
}
