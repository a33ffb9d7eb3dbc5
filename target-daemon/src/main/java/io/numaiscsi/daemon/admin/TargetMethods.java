package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.config.ChapCredentials;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.LunMap;
import io.numaiscsi.config.NetworkRange;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.registry.RegistryOperation;
import io.numaiscsi.session.SessionInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The admin methods that create, change and delete targets and end sessions. Target entries are checked as a config
 * file's are ({@link ConfigLoader#parseTarget}, {@link ConfigLoader#parseTargetSettings}); sessions are ended by
 * asking their initiators to log out (RFC 7143 AsyncEvent 1), or with {@code force} on a session by closing it.
 */
final class TargetMethods {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** What {@code target.set} takes besides the target and force; each key absent is kept, null clears it. */
    private static final List<String> SETTINGS = List.of("alias", "allow", "allow-networks", "chap", "lun-maps");

    private static final List<String> SET_KEYS =
            List.of("target", "force", "alias", "allow", "allow-networks", "chap", "lun-maps");

    private final TargetDaemon daemon;
    private final AdminMethods methods;

    TargetMethods(TargetDaemon daemon, AdminMethods methods) {
        this.daemon = daemon;
        this.methods = methods;
    }

    /** {@code {"target": {name, alias, allow, allow-networks, chap, luns}}}: a config file's target entry. */
    JsonNode create(JsonNode params) throws AdminError {
        JsonNode entry = params.get("target");
        if (entry == null || !entry.isObject()) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "target.create: params.target is required: the target as a "
                            + "config file writes it, e.g. {\"name\": \"iqn.2026-11.com.example:disk1\", \"luns\": [{\"id\": 0, "
                            + "\"backing\": \"ram\", \"size\": \"1G\"}]}");
        }
        TargetDefinition target;
        try {
            target = ConfigLoader.parseTarget(entry.toString(), "target.create params.target", daemon.runningConfig());
        } catch (ConfigException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
        }
        for (int i = 0; i < target.luns().size(); i++) {
            methods.requireDirectory(target.luns().get(i), "target.create params.target.luns[" + i + "]");
        }
        List<RegistryOperation> ops = new ArrayList<>();
        ops.add(new RegistryOperation.AddTarget(target));
        for (LunDefinition lun : target.luns()) {
            ops.add(new RegistryOperation.AddLun(target.name(), lun));
        }
        methods.changeAll(ops); // all or nothing
        return JSON.objectNode()
                .put("target", target.name())
                .put("luns", target.luns().size());
    }

    /**
     * {@code {"target": NAME, "force": false}}: refused while sessions are logged in unless {@code force}, which asks
     * them to log out once the target is gone (their initiators then find no target to log in to again).
     */
    JsonNode delete(JsonNode params) throws AdminError {
        TargetDefinition target = methods.target(params, "target.delete");
        boolean force = params.path("force").asBoolean(false);
        Predicate<SessionInfo> ofTarget = s -> s.target().equals(target.name());
        long open = daemon.sessions().describe().stream().filter(ofTarget).count();
        if (open > 0 && !force) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "target.delete: params.target: " + target.name() + " has " + open
                            + " session(s) logged in; log them out first, or pass force to ask them to log out");
        }
        methods.change(new RegistryOperation.RemoveTarget(target.name()));
        int asked = daemon.askToLogOut(ofTarget, "target " + target.name() + " deleted");
        return JSON.objectNode().put("target", target.name()).put("sessions_asked_to_log_out", asked);
    }

    /**
     * {@code {"target": NAME, "alias"?, "allow"?, "allow-networks"?, "chap"?, "force"?}}: each key given replaces the
     * target's (null clears it: no alias, any initiator, any network, no CHAP); new logins follow the result. With
     * {@code force} the sessions it would now refuse are asked to log out (every session when CHAP changed).
     */
    JsonNode set(JsonNode params) throws AdminError {
        TargetDefinition current = methods.target(params, "target.set");
        AdminMethods.knownKeys(params, "target.set", SET_KEYS, String.join(", ", SET_KEYS));
        ObjectNode entry = settingsOf(current);
        for (String key : SETTINGS) {
            if (params.has(key)) {
                if (params.get(key).isNull()) {
                    entry.remove(key);
                } else {
                    entry.set(key, params.get(key));
                }
            }
        }
        TargetConfig running = daemon.runningConfig();
        TargetDefinition changed;
        try {
            changed = ConfigLoader.parseTargetSettings(entry.toString(), "target.set params", running, current);
        } catch (ConfigException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
        }
        List<RegistryOperation> ops = new ArrayList<>();
        ops.add(new RegistryOperation.UpdateTarget(changed));
        if (!changed.lunMaps().equals(current.lunMaps())) {
            ops.add(new RegistryOperation.SetLunMaps(changed.name(), changed.lunMaps()));
        }
        methods.changeAll(ops);
        boolean chapChanged = !Objects.equals(current.chap(), changed.chap());
        Predicate<SessionInfo> refused = s -> s.target().equals(changed.name())
                && (chapChanged || !changed.allows(s.initiatorName()) || !changed.allowsAddress(s.remoteInetAddress()));
        ObjectNode result = JSON.objectNode().put("target", changed.name());
        if (params.path("force").asBoolean(false)) {
            result.put(
                    "sessions_asked_to_log_out",
                    daemon.askToLogOut(refused, "access rules of " + changed.name() + " changed"));
        } else {
            result.put(
                    "sessions_the_new_rules_would_refuse",
                    daemon.sessions().describe().stream().filter(refused).count());
        }
        return result;
    }

    /** {@code {"tsih": N, "force": false}}: asks the initiator to log out, or with force closes the connection now. */
    JsonNode logout(JsonNode params) throws AdminError {
        JsonNode tsih = params.get("tsih");
        if (tsih == null || !tsih.canConvertToInt()) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "session.logout: params.tsih (the session's number in " + "session.list) is required");
        }
        Predicate<SessionInfo> it = s -> s.tsih() == tsih.asInt();
        boolean force = params.path("force").asBoolean(false);
        int n = force
                ? daemon.sessions().drop(it, "closed by the admin API")
                : daemon.askToLogOut(it, "asked by the admin API");
        if (n == 0) {
            throw new AdminError(AdminError.INVALID_PARAMS, "session.logout: params.tsih: no session " + tsih.asInt());
        }
        methods.audit("session " + tsih.asInt() + (force ? " closed" : " asked to log out"));
        return JSON.objectNode().put("tsih", tsih.asInt()).put("closed", force);
    }

    /** A target's changeable settings as a config entry (secrets included: this never leaves the daemon). */
    private static ObjectNode settingsOf(TargetDefinition t) {
        ObjectNode entry = JSON.objectNode();
        if (t.alias() != null) {
            entry.put("alias", t.alias());
        }
        if (!t.allowedInitiators().isEmpty()) {
            t.allowedInitiators().forEach(entry.putArray("allow")::add);
        }
        if (!t.allowNetworks().isEmpty()) {
            var networks = entry.putArray("allow-networks");
            for (NetworkRange n : t.allowNetworks()) {
                networks.add(n.toString());
            }
        }
        ChapCredentials c = t.chap();
        if (c != null) {
            ObjectNode chap = entry.putObject("chap")
                    .put("username", c.username())
                    .put("secret", new String(c.secret(), StandardCharsets.UTF_8));
            if (c.mutual()) {
                chap.put("mutual-username", c.mutualUsername())
                        .put("mutual-secret", new String(c.mutualSecret(), StandardCharsets.UTF_8));
            }
        }
        if (!t.lunMaps().isEmpty()) {
            var maps = entry.putArray("lun-maps");
            for (LunMap m : t.lunMaps()) {
                ObjectNode o = maps.addObject();
                m.initiators().forEach(o.putArray("initiators")::add);
                var luns = o.putArray("luns");
                m.luns().forEach(l -> luns.addObject().put("lun", l.lun()).put("as", l.as()));
            }
        }
        return entry;
    }
}
