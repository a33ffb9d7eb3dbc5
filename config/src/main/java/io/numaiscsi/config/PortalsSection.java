package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code portals:} list. */
final class PortalsSection {

    static final String KEY = "portals";
    static final List<Portal> DEFAULT = List.of(new Portal("127.0.0.1", Portal.DEFAULT_PORT));

    private PortalsSection() {
    }

    static List<Portal> read(Fields root) throws ConfigException {
        Cursor c = root.optional(KEY);
        if (c == null) {
            return DEFAULT;
        }
        List<Portal> portals = new ArrayList<>();
        Map<String, Cursor> seen = new HashMap<>();
        for (Cursor item : c.nonEmptyList("needs at least one portal (remove the key for the default 127.0.0.1:3260)")) {
            Portal p;
            try {
                p = Portal.parse(item.text());
            } catch (IllegalArgumentException e) {
                throw item.error(e.getMessage());
            }
            Cursor previous = seen.putIfAbsent(p.toString().toLowerCase(Locale.ROOT), item);
            if (previous != null) {
                throw item.error("duplicate portal " + p + " (also " + previous.path() + " at line " + previous.line() + ")");
            }
            portals.add(p);
        }
        return portals;
    }
}
