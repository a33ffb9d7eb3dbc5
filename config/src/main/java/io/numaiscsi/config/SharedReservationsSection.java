package io.numaiscsi.config;

import java.util.List;

/**
 * A target's {@code shared-reservations:} mapping, {@code {backend: file, directory: /dev/shm/ha-pr}} or
 * {@code {backend: rados, pool: rbd, ceph-conf: /etc/ceph/ceph.conf, rbd-user: iscsi, keyring: ...}}: the persistent
 * reservations of its LUNs are kept in one object per LUN that every gateway exporting the target reads and replaces.
 */
final class SharedReservationsSection {
    static final String KEY = "shared-reservations";
    static final List<String> FILE_KEYS = List.of("directory");
    static final List<String> RADOS_KEYS = List.of("pool", "ceph-conf", "rbd-user", "keyring");
    static final List<String> KEYS = List.of("backend", "directory", "pool", "ceph-conf", "rbd-user", "keyring");

    private SharedReservationsSection() {}

    /** The definition, or null without the key (reservations kept by this daemon alone). */
    static SharedReservationsDefinition read(Fields target) throws ConfigException {
        Cursor at = target.optional(KEY);
        if (at == null) {
            return null;
        }
        if (target.optional(AluaSection.KEY) == null) {
            // without ALUA every gateway is target port 1: one initiator's sessions through two gateways would be one
            // I_T nexus, and a gateway that must be fenced could not be told apart
            throw at.error("needs alua on the same target (each gateway's port, alua.port, must be its own)");
        }
        Fields f = at.fields(KEYS);
        Cursor backendAt = f.required("backend");
        String backend = backendAt.text();
        if (!SharedReservationsDefinition.BACKENDS.contains(backend)) {
            throw backendAt.error("unknown backend \"" + backend + "\" ("
                    + String.join(", ", SharedReservationsDefinition.BACKENDS) + ")");
        }
        boolean rados = backend.equals(SharedReservationsDefinition.RADOS);
        for (String k : rados ? FILE_KEYS : RADOS_KEYS) {
            Cursor c = f.optional(k);
            if (c != null) {
                throw c.error("is not used with backend " + backend);
            }
        }
        if (rados) {
            return readRados(f);
        }
        return new SharedReservationsDefinition(backend, CephClientKeys.absolute(f.required("directory")));
    }

    private static SharedReservationsDefinition readRados(Fields f) throws ConfigException {
        CephClientKeys k = CephClientKeys.read(f, "the reservation objects");
        return SharedReservationsDefinition.rados(k.pool(), k.cephConf(), k.user(), k.keyring());
    }

    static void write(SharedReservationsDefinition d, YamlText y) {
        if (d == null) {
            return;
        }
        y.open(KEY).entry("backend", d.backend());
        if (d.directory() != null) {
            y.entry("directory", YamlText.scalar(d.directory().toString()));
        }
        if (d.pool() != null) {
            y.entry("pool", YamlText.scalar(d.pool()))
                    .entry("ceph-conf", YamlText.scalar(d.cephConf().toString()))
                    .entry("rbd-user", YamlText.scalar(d.user()));
            if (d.keyring() != null) {
                y.entry("keyring", YamlText.scalar(d.keyring().toString()));
            }
        }
        y.close();
    }
}
