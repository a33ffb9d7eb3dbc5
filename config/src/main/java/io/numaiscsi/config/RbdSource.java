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
 * @param owner     in a gateway group, the member that takes the image's lock when none holds it (its preferred
 *                  owner); null elsewhere
 */
public record RbdSource(
        String pool,
        String image,
        Path cephConf,
        String user,
        Path keyring,
        Duration timeout,
        boolean numaCache,
        String owner) {
    public static final String DEFAULT_POOL = "rbd";
    public static final Path DEFAULT_CEPH_CONF = Path.of("/etc/ceph/ceph.conf");
    public static final String DEFAULT_USER = "admin";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    /** Outside a gateway group. */
    public RbdSource(
            String pool, String image, Path cephConf, String user, Path keyring, Duration timeout, boolean numaCache) {
        this(pool, image, cephConf, user, keyring, timeout, numaCache, null);
    }

    /** This image reached as {@code client} settings say (a group member's own credentials). */
    public RbdSource reachedWith(Path newCephConf, String newUser, Path newKeyring, Duration newTimeout) {
        return new RbdSource(pool, image, newCephConf, newUser, newKeyring, newTimeout, numaCache, owner);
    }

    /** This image with another preferred owner. */
    public RbdSource withOwner(String newOwner) {
        return new RbdSource(pool, image, cephConf, user, keyring, timeout, numaCache, newOwner);
    }

    public RbdSource {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(cephConf, "cephConf");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(timeout, "timeout");
    }
}
