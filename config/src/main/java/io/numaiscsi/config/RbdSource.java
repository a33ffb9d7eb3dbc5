package io.numaiscsi.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where a {@code backing: rbd} LUN's blocks live: an RBD image in a Ceph pool, reached with a ceph.conf, a client id
 * and a keyring (null: the one ceph.conf names).
 *
 * @param timeout   how long a connect or an I/O may wait for the cluster before it fails (NOT READY to initiators)
 * @param numaCache whether the LUN is served through the NUMA cache: off unless configured, since another gateway
 *                  writing the same image would leave the cache stale
 */
public record RbdSource(String pool, String image, Path cephConf, String user, Path keyring, Duration timeout,
        boolean numaCache) {
    public static final String DEFAULT_POOL = "rbd";
    public static final Path DEFAULT_CEPH_CONF = Path.of("/etc/ceph/ceph.conf");
    public static final String DEFAULT_USER = "admin";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    public RbdSource {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(cephConf, "cephConf");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(timeout, "timeout");
    }
}
