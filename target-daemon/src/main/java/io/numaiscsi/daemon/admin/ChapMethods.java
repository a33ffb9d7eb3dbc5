package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.config.ChapCredentials;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.InitiatorDefinition;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.daemon.TargetDaemon;
import java.util.ArrayList;
import java.util.List;

/**
 * The admin methods over the CHAP of discovery sessions and of single initiators ({@code discovery-chap:},
 * {@code initiators:}), checked with the config file's rules. New logins use a change at once; sessions logged in
 * go on. Answers and audit lines name users, never secrets.
 */
final class ChapMethods {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final TargetDaemon daemon;
    private final AdminMethods methods;

    ChapMethods(TargetDaemon daemon, AdminMethods methods) {
        this.daemon = daemon;
        this.methods = methods;
    }

    JsonNode list() {
        TargetConfig running = daemon.runningConfig();
        ObjectNode r = JSON.objectNode();
        if (running.discoveryChap() == null) {
            r.putNull("discovery");
        } else {
            users(r.putObject("discovery"), running.discoveryChap());
        }
        ArrayNode initiators = r.putArray("initiators");
        for (InitiatorDefinition i : running.initiators()) {
            users(initiators.addObject().put("name", i.name()), i.chap());
        }
        return r;
    }

    /**
     * {@code {"discovery": {username, secret, mutual-username?, mutual-secret?} | null}} or {@code {"initiator": NAME,
     * "chap": {...} | null}}; null removes the CHAP (discovery open again; the initiator back to its targets' CHAP).
     */
    synchronized JsonNode set(JsonNode params) throws AdminError {
        boolean discovery = params.has("discovery");
        if (discovery == params.has("initiator")) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "chap.set: give params.discovery, or params.initiator " + "with params.chap");
        }
        AdminMethods.knownKeys(
                params,
                "chap.set",
                discovery ? List.of("discovery") : List.of("initiator", "chap"),
                "discovery; or initiator, chap");
        return discovery ? setDiscovery(params.get("discovery")) : setInitiator(params);
    }

    private JsonNode setDiscovery(JsonNode chap) throws AdminError {
        TargetConfig running = daemon.runningConfig();
        ChapCredentials credentials = null;
        if (!chap.isNull()) {
            requireObject(chap, "params.discovery");
            try {
                credentials = ConfigLoader.parseDiscoveryChap(chap.toString(), "chap.set params.discovery", running);
            } catch (ConfigException e) {
                throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
            }
        }
        daemon.replaceChap(credentials, running.initiators());
        methods.audit(
                credentials == null
                        ? "discovery CHAP removed"
                        : "discovery CHAP set (user " + credentials.username() + ")");
        ObjectNode r = JSON.objectNode();
        if (credentials == null) {
            r.putNull("discovery");
        } else {
            users(r.putObject("discovery"), credentials);
        }
        return r;
    }

    private JsonNode setInitiator(JsonNode params) throws AdminError {
        JsonNode nameNode = params.get("initiator");
        if (nameNode == null || !nameNode.isTextual() || nameNode.asText().isBlank()) {
            throw new AdminError(AdminError.INVALID_PARAMS, "chap.set: params.initiator is required (an iSCSI name)");
        }
        JsonNode chap = params.get("chap");
        if (chap == null) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "chap.set: params.chap is required with params.initiator "
                            + "(null removes the initiator's own CHAP)");
        }
        String name = nameNode.asText();
        TargetConfig running = daemon.runningConfig();
        List<InitiatorDefinition> initiators = new ArrayList<>(running.initiators());
        boolean had = initiators.removeIf(i -> i.name().equalsIgnoreCase(name));
        ObjectNode r = JSON.objectNode().put("initiator", name);
        if (chap.isNull()) {
            if (!had) {
                throw new AdminError(
                        AdminError.INVALID_PARAMS,
                        "chap.set: params.initiator: " + name + " has no CHAP " + "of its own");
            }
            daemon.replaceChap(running.discoveryChap(), initiators);
            methods.audit("CHAP of initiator " + name + " removed");
            return r.putNull("chap");
        }
        requireObject(chap, "params.chap");
        ObjectNode entry = JSON.objectNode().put("name", name);
        entry.set("chap", chap);
        InitiatorDefinition defined;
        try {
            defined = ConfigLoader.parseInitiator(entry.toString(), "chap.set params", running);
        } catch (ConfigException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
        }
        initiators.add(defined);
        daemon.replaceChap(running.discoveryChap(), initiators);
        methods.audit(
                "CHAP of initiator " + name + " set (user " + defined.chap().username() + ")");
        users(r.putObject("chap"), defined.chap());
        return r;
    }

    private static void requireObject(JsonNode node, String field) throws AdminError {
        if (!node.isObject()) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "chap.set: " + field + " must be a config file's chap "
                            + "mapping, e.g. {\"username\": \"u\", \"secret\": \"...\"}, or null");
        }
    }

    private static void users(ObjectNode o, ChapCredentials c) {
        o.put("username", c.username());
        if (c.mutual()) {
            o.put("mutual_username", c.mutualUsername());
        }
    }
}
