package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where the gateways of a pair keep a target's persistent reservations in common: one versioned object per LUN in a
 * cluster store, chosen by {@code backend}.
 *
 * @param backend   {@code file}: a directory every gateway on this host opens (tmpfs; for tests and single-host
 *                  pairs); {@code rados}: a RADOS object in {@code pool} of the Ceph cluster the LUNs' images are in
 * @param directory the {@code file} backend's directory, else null
 * @param pool      the {@code rados} backend's pool, else null
 * @param cephConf  the {@code rados} backend's ceph.conf, else null
 * @param user      the {@code rados} backend's Ceph client id, else null
 * @param keyring   the {@code rados} backend's keyring (null: the one ceph.conf names)
 */
public record SharedReservationsDefinition(
        String backend, Path directory, String pool, Path cephConf, String user, Path keyring) {
    public static final String FILE = "file";
    public static final String RADOS = "rados";
    public static final List<String> BACKENDS = List.of(FILE, RADOS);

    public SharedReservationsDefinition {
        Objects.requireNonNull(backend, "backend");
        if (backend.equals(FILE)) {
            Objects.requireNonNull(directory, "directory");
        } else if (backend.equals(RADOS)) {
            Objects.requireNonNull(pool, "pool");
            Objects.requireNonNull(cephConf, "cephConf");
            Objects.requireNonNull(user, "user");
        }
    }

    /** The {@code file} backend in {@code directory}. */
    public SharedReservationsDefinition(String backend, Path directory) {
        this(backend, directory, null, null, null, null);
    }

    /** The {@code rados} backend. */
    public static SharedReservationsDefinition rados(String pool, Path cephConf, String user, Path keyring) {
        return new SharedReservationsDefinition(RADOS, null, pool, cephConf, user, keyring);
    }
}
