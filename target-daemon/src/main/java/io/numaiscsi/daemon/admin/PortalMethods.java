package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.Portal;
import io.numaiscsi.daemon.LivePortals;
import io.numaiscsi.daemon.TargetDaemon;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The admin methods over the portals: list them, listen on one more TCP portal, stop listening on one. A portal is
 * given as a config file's {@code portals:} item. iSER portals register their memory at start, so they only change
 * with a restart.
 */
final class PortalMethods {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final TargetDaemon daemon;
    private final AdminMethods methods;

    PortalMethods(TargetDaemon daemon, AdminMethods methods) {
        this.daemon = daemon;
        this.methods = methods;
    }

    JsonNode list() {
        ArrayNode list = JSON.arrayNode();
        for (LivePortals.Listening l : daemon.portals()) {
            list.addObject()
                    .put("address", l.portal().toString())
                    .put("transport", l.portal().transport().name().toLowerCase(Locale.ROOT))
                    .put(
                            "port",
                            l.bound() == null ? l.portal().port() : l.bound().getPort());
        }
        return list;
    }

    /** {@code {"portal": "127.0.0.1:3261"}}: SendTargets reports it from then on. */
    JsonNode add(JsonNode params) throws AdminError {
        Portal p = portal(params, "portal.add", daemon.runningConfig().portals());
        LivePortals.Listening l;
        try {
            l = daemon.addPortal(p);
        } catch (IOException e) {
            // the listener's message names the address already
            throw new AdminError(AdminError.FAILED, "portal.add: " + e.getMessage() + " (nothing changed)");
        } catch (RuntimeException e) {
            throw new AdminError(
                    AdminError.FAILED,
                    "portal.add: cannot listen on " + p + ": " + e.getMessage() + " (nothing changed)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminError(AdminError.FAILED, "portal.add: interrupted");
        }
        methods.audit("portal " + p + " added");
        return JSON.objectNode()
                .put("portal", p.toString())
                .put("port", l.bound().getPort());
    }

    /** {@code {"portal": "127.0.0.1:3261"}}: no new connection there; those accepted there go on. */
    JsonNode remove(JsonNode params) throws AdminError {
        Portal p = portal(params, "portal.remove", List.of());
        List<LivePortals.Listening> listening = daemon.portals();
        LivePortals.Listening found = listening.stream()
                .filter(l -> l.portal().toString().equalsIgnoreCase(p.toString())
                        && l.portal().transport() == p.transport())
                .findFirst()
                .orElseThrow(() -> new AdminError(
                        AdminError.INVALID_PARAMS,
                        "portal.remove: params.portal: "
                                + "no " + p.transport().name().toLowerCase(Locale.ROOT) + " portal " + p + " (portals: "
                                + String.join(
                                        ", ",
                                        listening.stream()
                                                .map(l -> l.portal().toString())
                                                .toList()) + ")"));
        if (listening.size() == 1) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "portal.remove: params.portal: " + p + " is the last " + "portal; add another first");
        }
        int kept = daemon.removePortal(found);
        methods.audit("portal " + p + " removed (" + kept + " connection(s) through it go on)");
        return JSON.objectNode()
                .put("portal", p.toString())
                .put("connections_kept", kept)
                .put("note", "sessions that came in through " + p + " go on; new connections there are refused");
    }

    private static Portal portal(JsonNode params, String method, List<Portal> running) throws AdminError {
        JsonNode entry = params.get("portal");
        if (entry == null || !(entry.isTextual() || entry.isObject())) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    method + ": params.portal is required: the portal as a "
                            + "config file's portals: item, e.g. \"127.0.0.1:3261\"");
        }
        Portal p;
        try {
            p = ConfigLoader.parsePortal(entry.toString(), method + " params.portal", running);
        } catch (ConfigException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
        }
        if (p.transport() != Portal.Transport.TCP) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    method + ": params.portal: " + p + " is an iSER portal; "
                            + "iSER portals need a restart (change the config file's portals: and restart the daemon)");
        }
        return p;
    }
}
