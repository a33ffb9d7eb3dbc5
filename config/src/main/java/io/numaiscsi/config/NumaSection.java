package io.numaiscsi.config;

import java.util.List;

/** The {@code numa:} section. */
final class NumaSection {

    static final String KEY = "numa";
    static final List<String> KEYS = List.of("pretend-nodes");

    private NumaSection() {
    }

    static NumaSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        Cursor c = f.optional("pretend-nodes");
        if (c == null) {
            return NumaSettings.DEFAULT;
        }
        int n = c.integer(0, 64);
        if (n == 1) {
            throw c.error("1 is not allowed (0 = the real topology, 2..64 pretend nodes)");
        }
        return new NumaSettings(n);
    }
}
