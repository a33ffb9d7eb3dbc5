package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where the gateways of a pair keep a target's persistent reservations in common: one versioned object per LUN in a
 * cluster store, chosen by {@code backend}.
 *
 * @param backend   {@code file}: a directory every gateway on this host opens (tmpfs; for tests and single-host
 *                  pairs); {@code rados} is reserved for a RADOS object (comes with the rbd module)
 * @param directory the {@code file} backend's directory
 */
public record SharedReservationsDefinition(String backend, Path directory) {
    public static final String FILE = "file";
    public static final List<String> BACKENDS = List.of(FILE);

    public SharedReservationsDefinition {
        Objects.requireNonNull(backend, "backend");
    }
}
