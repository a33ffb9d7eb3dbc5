package io.numaiscsi.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The top-level {@code group:} mapping: this gateway is a member of a gateway group whose targets live in the cluster.
 * <pre>
 * group:
 *   name: iscsi-a                    # the group (lower-case letters, digits, '-')
 *   member: gw1                      # this gateway's name in it
 *   pool: rbd                        # where the group's objects are (default rbd)
 *   ceph-conf: /etc/ceph/ceph.conf   # default; absolute
 *   rbd-user: iscsi                  # default admin
 *   keyring: /etc/ceph/ceph.client.iscsi.keyring   # default: the one ceph.conf names
 *   secret-key-file: /etc/numa-iscsi-target/group.key   # the key CHAP secrets are encrypted with (same on every member)
 *   timeout: 20s                     # connect and operation timeout, 1s..300s
 * </pre>
 * With it, the file holds no {@code targets}: they come from the group.
 */
final class GroupSection {
    static final String KEY = "group";
    private static final List<String> KEYS = List.of("name", "member", "pool", "ceph-conf", "rbd-user", "keyring",
            "secret-key-file", "timeout");
    private static final String NAME = "[a-z0-9][a-z0-9-]{0,31}";

    private GroupSection() {
    }

    /** The settings, or null without the key. */
    static GroupSettings read(Fields top) throws ConfigException {
        Cursor at = top.optional(KEY);
        if (at == null) {
            return null;
        }
        Fields f = at.fields(KEYS);
        String name = name(f.required("name"));
        String member = name(f.required("member"));
        String pool = f.text("pool");
        if (pool == null) {
            pool = RbdSource.DEFAULT_POOL;
        } else if (pool.isBlank()) {
            throw f.optional("pool").error("is empty (the Ceph pool of the group's objects; rbd when left out)");
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
        Path keyring = c == null ? null : absolute(c);
        c = f.optional("secret-key-file");
        Path key = c == null ? null : absolute(c);
        c = f.optional("timeout");
        Duration timeout = c == null ? RbdSource.DEFAULT_TIMEOUT
                : c.duration(LunSection.MIN_RBD_TIMEOUT, LunSection.MAX_RBD_TIMEOUT, false);
        return new GroupSettings(name, member, pool, conf, user, keyring, key, timeout);
    }

    private static String name(Cursor c) throws ConfigException {
        String s = c.text();
        if (!s.matches(NAME)) {
            throw c.error("\"" + s + "\" is not a name: use 1 to 32 lower-case letters, digits or '-'");
        }
        return s;
    }

    private static Path absolute(Cursor c) throws ConfigException {
        Path p = DaemonSection.path(c);
        if (!p.isAbsolute()) {
            throw c.error("must be an absolute path");
        }
        return p;
    }

    static void write(GroupSettings g, YamlText y) {
        if (g == null) {
            return;
        }
        y.open(KEY).entry("name", g.name()).entry("member", g.member()).entry("pool", YamlText.scalar(g.pool()))
                .entry("ceph-conf", YamlText.scalar(g.cephConf().toString())).entry("rbd-user", YamlText.scalar(g.user()));
        if (g.keyring() != null) {
            y.entry("keyring", YamlText.scalar(g.keyring().toString()));
        }
        if (g.secretKeyFile() != null) {
            y.entry("secret-key-file", YamlText.scalar(g.secretKeyFile().toString()));
        }
        y.entry("timeout", Durations.format(g.timeout())).close();
    }
}
