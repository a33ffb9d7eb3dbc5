package io.numaiscsi.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * This gateway's membership of a gateway group: the group's targets and LUNs live in one object of the Ceph cluster
 * ({@code numa-iscsi.group.<name>} in {@code pool}), which every member applies; this file keeps only what is
 * local.
 *
 * @param name          the group's name (lower-case letters, digits and '-')
 * @param member        this gateway's name in the group (the same characters)
 * @param pool          the pool of the group's objects (rbd)
 * @param cephConf      how this gateway reaches the cluster
 * @param user          its Ceph client id
 * @param keyring       its keyring (null: the one ceph.conf names)
 * @param secretKeyFile the key (the same file on every member) that CHAP secrets are encrypted with in the group's
 *                      object; null: the group cannot hold CHAP secrets
 * @param timeout       how long a connect or an operation may wait for the cluster
 */
public record GroupSettings(
        String name,
        String member,
        String pool,
        Path cephConf,
        String user,
        Path keyring,
        Path secretKeyFile,
        Duration timeout) {
    public GroupSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(cephConf, "cephConf");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(timeout, "timeout");
    }

    /** The group's configuration object. */
    public String objectName() {
        return "numa-iscsi.group." + name;
    }
}
