package io.numaiscsi.rbd;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach a Ceph cluster: its ceph.conf, the client id ({@code admin} is {@code client.admin}), an optional
 * keyring (else the one ceph.conf names), and how long a connect or an operation may take before it fails.
 *
 * @param timeout client_mount_timeout (connect), rados_mon_op_timeout and rados_osd_op_timeout: an I/O that the
 *                cluster does not answer within it fails (the LUN answers NOT READY, which initiators retry)
 */
public record CephClient(Path cephConf, String user, Path keyring, Duration timeout) {
    /** Below the 30 s SCSI command timeout of Linux and libiscsi, so an initiator sees a retryable error, not an abort. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    public static final Path DEFAULT_CONF = Path.of("/etc/ceph/ceph.conf");
    public static final String DEFAULT_USER = "admin";

    public CephClient {
        Objects.requireNonNull(cephConf, "cephConf");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(timeout, "timeout");
    }

    /** "client.ID" as Ceph names the entity. */
    public String entity() {
        return user.startsWith("client.") ? user : "client." + user;
    }
}
