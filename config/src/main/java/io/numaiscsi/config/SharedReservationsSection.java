package io.numaiscsi.config;

import java.util.List;

/**
 * A target's {@code shared-reservations:} mapping, {@code {backend: file, directory: /dev/shm/ha-pr}}: the persistent
 * reservations of its LUNs are kept in one object per LUN that every gateway exporting the target reads and replaces.
 */
final class SharedReservationsSection {
    static final String KEY = "shared-reservations";
    static final List<String> KEYS = List.of("backend", "directory");

    private SharedReservationsSection() {
    }

    /** The definition, or null without the key (reservations kept by this daemon alone). */
    static SharedReservationsDefinition read(Fields target) throws ConfigException {
        Cursor at = target.optional(KEY);
        if (at == null) {
            return null;
        }
        Fields f = at.fields(KEYS);
        Cursor backendAt = f.required("backend");
        String backend = backendAt.text();
        if (backend.equals("rados")) {
            throw backendAt.error("the rados backend is not built yet (it plugs in with the rbd module's RadosObject);"
                    + " use file");
        }
        if (!SharedReservationsDefinition.BACKENDS.contains(backend)) {
            throw backendAt.error("unknown backend \"" + backend + "\" (" + String.join(", ",
                    SharedReservationsDefinition.BACKENDS) + ")");
        }
        Cursor directoryAt = f.required("directory");
        java.nio.file.Path directory = DaemonSection.path(directoryAt);
        if (!directory.isAbsolute()) {
            throw directoryAt.error("must be an absolute path (every gateway must name the same directory)");
        }
        return new SharedReservationsDefinition(backend, directory);
    }

    static void write(SharedReservationsDefinition d, YamlText y) {
        if (d == null) {
            return;
        }
        y.open(KEY).entry("backend", d.backend()).entry("directory", YamlText.scalar(d.directory().toString())).close();
    }
}
