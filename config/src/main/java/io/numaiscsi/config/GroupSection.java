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
    private static final List<String> KEYS =
            List.of("name", "member", "pool", "ceph-conf", "rbd-user", "keyring", "secret-key-file", "timeout");
    private static final String NAME = "[a-z0-9][a-z0-9-]{0,31}";

    private GroupSection() {}

    /** The settings, or null without the key. */
    static GroupSettings read(Fields top) throws ConfigException {
        Cursor at = top.optional(KEY);
        if (at == null) {
            return null;
        }
        Fields f = at.fields(KEYS);
        String name = name(f.required("name"));
        String member = name(f.required("member"));
        CephClientKeys client = CephClientKeys.read(f, "the group's objects");
        Cursor c = f.optional("secret-key-file");
        Path key = c == null ? null : CephClientKeys.absolute(c);
        c = f.optional("timeout");
        Duration timeout = c == null
                ? RbdSource.DEFAULT_TIMEOUT
                : c.duration(LunSection.MIN_RBD_TIMEOUT, LunSection.MAX_RBD_TIMEOUT, false);
        return new GroupSettings(
                name, member, client.pool(), client.cephConf(), client.user(), client.keyring(), key, timeout);
    }

    private static String name(Cursor c) throws ConfigException {
        String s = c.text();
        if (!s.matches(NAME)) {
            throw c.error("\"" + s + "\" is not a name: use 1 to 32 lower-case letters, digits or '-'");
        }
        return s;
    }

    static void write(GroupSettings g, YamlText y) {
        if (g == null) {
            return;
        }
        y.open(KEY)
                .entry("name", g.name())
                .entry("member", g.member())
                .entry("pool", YamlText.scalar(g.pool()))
                .entry("ceph-conf", YamlText.scalar(g.cephConf().toString()))
                .entry("rbd-user", YamlText.scalar(g.user()));
        if (g.keyring() != null) {
            y.entry("keyring", YamlText.scalar(g.keyring().toString()));
        }
        if (g.secretKeyFile() != null) {
            y.entry("secret-key-file", YamlText.scalar(g.secretKeyFile().toString()));
        }
        y.entry("timeout", Durations.format(g.timeout())).close();
    }
}
