package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code portals:} list. An item is {@code host:port} (iSCSI over TCP) or a mapping
 * {@code {address: host:port, transport: tcp|iser, connections: N}} ({@code connections}: iSER only, the
 * connections whose buffers are registered at start).
 */
final class PortalsSection {

    static final String KEY = "portals";
    static final List<Portal> DEFAULT = List.of(new Portal("127.0.0.1", Portal.DEFAULT_PORT));

    private PortalsSection() {}

    static List<Portal> read(Fields root) throws ConfigException {
        Cursor c = root.optional(KEY);
        if (c == null) {
            return DEFAULT;
        }
        List<Portal> portals = new ArrayList<>();
        Map<String, Cursor> seen = new HashMap<>();
        for (Cursor item :
                c.nonEmptyList("needs at least one portal (remove the key for the default 127.0.0.1:3260)")) {
            Portal p = portal(item);
            Cursor previous = seen.putIfAbsent(p.toString().toLowerCase(Locale.ROOT) + " " + p.transport(), item);
            if (previous != null) {
                throw item.error(
                        "duplicate portal " + p + " (also " + previous.path() + " at line " + previous.line() + ")");
            }
            portals.add(p);
        }
        return portals;
    }

    /** One portal entry on its own, for {@code running} to listen on as well (not one of them already). */
    static Portal readOne(Cursor item, List<Portal> running) throws ConfigException {
        Portal p = portal(item);
        for (Portal r : running) {
            if (r.toString().equalsIgnoreCase(p.toString()) && r.transport() == p.transport()) {
                throw item.error("duplicate portal " + p + " (already listening there)");
            }
        }
        return p;
    }

    private static Portal portal(Cursor item) throws ConfigException {
        Cursor address = item;
        Portal.Transport transport = Portal.Transport.TCP;
        Cursor connections = null;
        if (item.node() instanceof Node.Mapping) {
            Fields f = item.fields(List.of("address", "transport", "connections"));
            connections = f.optional("connections");
            address = f.required("address");
            Cursor t = f.optional("transport");
            if (t != null) {
                String name = t.text().toLowerCase(Locale.ROOT);
                transport = switch (name) {
                    case "tcp" -> Portal.Transport.TCP;
                    case "iser" -> Portal.Transport.ISER;
                    default -> throw t.error("unknown transport \"" + t.text() + "\" (tcp, iser)");
                };
            }
        }
        Portal portal;
        try {
            portal = Portal.parse(address.text()).withTransport(transport);
        } catch (IllegalArgumentException e) {
            throw address.error(e.getMessage());
        }
        if (connections == null) {
            return portal;
        }
        if (transport != Portal.Transport.ISER) {
            throw connections.error(
                    "applies to iSER portals only (a TCP portal's sessions are bounded by " + "limits.max-sessions)");
        }
        return portal.withConnections(connections.integer(1, Portal.MAX_ISER_CONNECTIONS));
    }
}
