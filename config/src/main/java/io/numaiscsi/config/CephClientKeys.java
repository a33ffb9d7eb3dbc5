package io.numaiscsi.config;

import java.nio.file.Path;

/**
 * The keys that say how a gateway reaches a Ceph cluster, where they stand beside others in one mapping
 * ({@code shared-reservations: {backend: rados, ...}}, {@code group:}): {@code pool} (rbd), {@code ceph-conf}
 * (/etc/ceph/ceph.conf), {@code rbd-user} (admin), {@code keyring} (the one ceph.conf names); paths absolute.
 */
record CephClientKeys(String pool, Path cephConf, String user, Path keyring) {

    /** The keys of {@code f}; {@code poolHolds} names what the pool holds, for the message of an empty one. */
    static CephClientKeys read(Fields f, String poolHolds) throws ConfigException {
        String pool = f.text("pool");
        if (pool == null) {
            pool = RbdSource.DEFAULT_POOL;
        } else if (pool.isBlank()) {
            throw f.optional("pool").error("is empty (the Ceph pool of " + poolHolds + "; rbd when left out)");
        }
        Cursor c = f.optional("ceph-conf");
        Path conf = c == null ? RbdSource.DEFAULT_CEPH_CONF : absolute(c);
        String user = f.text("rbd-user");
        if (user == null) {
            user = RbdSource.DEFAULT_USER;
        } else if (user.isBlank() || user.chars().anyMatch(ch -> ch <= 0x20 || ch > 0x7e)) {
            throw f.optional("rbd-user").error("\"" + user + "\" is not a Ceph client id (e.g. admin or iscsi)");
        }
        c = f.optional("keyring");
        return new CephClientKeys(pool, conf, user, c == null ? null : absolute(c));
    }

    /** A path that must be absolute: every gateway must name the same one. */
    static Path absolute(Cursor c) throws ConfigException {
        Path p = DaemonSection.path(c);
        if (!p.isAbsolute()) {
            throw c.error("must be an absolute path (every gateway must name the same one)");
        }
        return p;
    }
}
