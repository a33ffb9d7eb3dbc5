package io.numaiscsi.daemon.admin;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.ConfigFile;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.group.GroupAdmin;
import io.numaiscsi.daemon.registry.RegistryOperation;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.session.SessionInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's methods over a running daemon. A change is validated with the config file's rules and messages
 * (a LUN as a config file's LUN entry), applied as a {@link RegistryOperation} without touching unaffected sessions,
 * and logged as one audit line. Listings are copies taken at the moment of the call.
 */
public final class AdminMethods {
    private static final Logger AUDIT = LoggerFactory.getLogger("audit");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final TargetDaemon daemon;
    private final TargetMethods targetMethods;
    private final StatusMethods status;
    private final PortalMethods portalMethods;
    private final ChapMethods chapMethods;
    private final ConfigSave save;
    /** This gateway's gateway group, where every target and LUN change goes; null outside one. */
    private final GroupAdmin group;

    /** {@code file}: the daemon's --config file, for {@code config.save}. */
    public AdminMethods(TargetDaemon daemon, ConfigFile file) {
        this(daemon, file, null);
    }

    /** {@code group}: the gateway group this gateway is a member of, or null. */
    public AdminMethods(TargetDaemon daemon, ConfigFile file, GroupAdmin group) {
        this.group = group;
        this.daemon = daemon;
        this.targetMethods = new TargetMethods(daemon, this);
        this.status = new StatusMethods(daemon);
        this.portalMethods = new PortalMethods(daemon, this);
        this.chapMethods = new ChapMethods(daemon, this);
        this.save = new ConfigSave(daemon, file);
    }

    JsonNode call(String method, JsonNode params) throws AdminError {
        return switch (method) {
            case "daemon.status" -> status();
            case "target.list" -> targets();
            case "target.create" -> targetMethods.create(params);
            case "target.delete" -> targetMethods.delete(params);
            case "target.set" -> targetMethods.set(params);
            case "session.list" -> sessions();
            case "session.logout" -> targetMethods.logout(params);
            case "lun.add" -> addLun(params);
            case "lun.remove" -> removeLun(params);
            case "lun.resize" -> resizeLun(params);
            case "portal.list" -> portalMethods.list();
            case "portal.add" -> portalMethods.add(params);
            case "portal.remove" -> portalMethods.remove(params);
            case "chap.list" -> chapMethods.list();
            case "chap.set" -> chapMethods.set(params);
            case "log.level" -> logLevel(params);
            case "cache.status" -> status.cache();
            case "thread.list" -> status.threads();
            case "config.save" -> save.call(params);
            case "group.status", "group.move", "group.rebalance", "group.member-remove", "group.restore" ->
                groupCall(method, params);
            default ->
                throw new AdminError(
                        AdminError.METHOD_NOT_FOUND,
                        "no method " + method + " (methods: "
                                + "daemon.status, target.list, target.create, target.delete, target.set, session.list, "
                                + "session.logout, lun.add, lun.remove, lun.resize, portal.list, portal.add, portal.remove, "
                                + "chap.list, chap.set, cache.status, thread.list, log.level, config.save, group.status, "
                                + "group.move, group.rebalance, group.member-remove, group.restore)");
        };
    }

    private JsonNode status() {
        ObjectNode r = JSON.objectNode();
        TargetConfig config = daemon.runningConfig();
        ArrayNode portals = r.putArray("portals");
        daemon.boundAddresses().forEach(a -> portals.add(a.getHostString() + ":" + a.getPort()));
        r.put("targets", config.targets().size());
        r.put("luns", config.targets().stream().mapToInt(t -> t.luns().size()).sum());
        r.put("sessions", daemon.sessions().size());
        r.put(
                "event_model",
                config.daemon().eventModel().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        r.put(
                "cache_mode",
                config.cache().mode().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        r.put("data_dir", config.daemon().dataDir().toString());
        return r;
    }

    private JsonNode targets() {
        ArrayNode list = JSON.arrayNode();
        List<SessionInfo> sessions = daemon.sessions().describe();
        for (TargetDefinition t : daemon.runningConfig().targets()) {
            ObjectNode target = list.addObject().put("name", t.name());
            if (t.alias() != null) {
                target.put("alias", t.alias());
            }
            ArrayNode allow = target.putArray("allow");
            t.allowedInitiators().forEach(allow::add);
            ArrayNode networks = target.putArray("allow_networks");
            t.allowNetworks().forEach(n -> networks.add(n.toString()));
            if (t.chap() != null) { // never the secrets
                ObjectNode chap =
                        target.putObject("chap").put("username", t.chap().username());
                if (t.chap().mutual()) {
                    chap.put("mutual_username", t.chap().mutualUsername());
                }
            }
            ArrayNode luns = target.putArray("luns");
            for (LunDefinition lun : t.luns()) {
                ObjectNode l = luns.addObject()
                        .put("id", lun.id())
                        .put("backing", lun.backing().name().toLowerCase(Locale.ROOT));
                served(t.name(), lun, l);
                if (lun.path() != null) {
                    l.put("path", lun.path().toString());
                }
                if (lun.rbd() != null) {
                    l.put("image", lun.rbd().pool() + "/" + lun.rbd().image());
                }
                daemon.registry().luns().stream()
                        .filter(r ->
                                r.target().equals(t.name()) && r.definition().id() == lun.id())
                        .reduce((removedNotIdle, added) -> added)
                        .map(r -> r.accessState())
                        .ifPresent(access -> l.put("access", access));
                daemon.cachedLuns().stream()
                        .filter(c -> c.target().equals(t.name()) && c.lun() == lun.id())
                        .findFirst()
                        .ifPresent(c -> l.put("cache_held_bytes", c.device().heldBytes()));
            }
            target.put(
                    "sessions",
                    sessions.stream().filter(s -> s.target().equals(t.name())).count());
        }
        return list;
    }

    /**
     * Size and block sizes as the LUN serves them: a block device that leaves them to the device (size 0 in its
     * definition) shows the device's, and the physical block is the one initiators are told.
     */
    private void served(String target, LunDefinition lun, ObjectNode l) {
        daemon.registry().luns().stream()
                .filter(r -> r.target().equals(target) && r.definition().id() == lun.id())
                .reduce((removedNotIdle, added) -> added)
                .ifPresentOrElse(
                        r -> l.put("size", r.device().blockCount() * r.device().blockSize())
                                .put("block_size", r.device().blockSize())
                                .put("physical_block_size", r.unit().physicalBlockSize()),
                        () -> l.put("size", lun.sizeBytes()).put("block_size", lun.blockSize()));
    }

    private JsonNode sessions() {
        ArrayNode list = JSON.arrayNode();
        for (SessionInfo s : daemon.sessions().describe()) {
            ObjectNode o = list.addObject()
                    .put("tsih", s.tsih())
                    .put("type", s.type())
                    .put("initiator", s.initiatorName())
                    .put("isid", String.format("%012x", s.isid()))
                    .put("target", s.target())
                    .put("address", s.address())
                    .put("commands_in_flight", s.commandsInFlight());
            SessionParameters p = s.parameters();
            if (p != null) {
                o.putObject("negotiated")
                        .put("MaxRecvDataSegmentLength", p.initiatorMaxRecvDataSegmentLength())
                        .put("MaxBurstLength", p.maxBurstLength())
                        .put("FirstBurstLength", p.firstBurstLength())
                        .put("ImmediateData", p.immediateData())
                        .put("InitialR2T", p.initialR2T())
                        .put("HeaderDigest", p.headerDigest() ? "CRC32C" : "None")
                        .put("DataDigest", p.dataDigest() ? "CRC32C" : "None")
                        .put("MaxOutstandingR2T", p.maxOutstandingR2T())
                        .put("RDMAExtensions", p.rdmaExtensions());
            }
        }
        return list;
    }

    /** {@code {"target": NAME, "lun": {id, backing, size, path, block-size, serial}}}: the keys of a config LUN entry. */
    private JsonNode addLun(JsonNode params) throws AdminError {
        TargetDefinition target = target(params, "lun.add");
        JsonNode lun = params.get("lun");
        if (lun == null || !lun.isObject()) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "lun.add: params.lun is required: the LUN as a config "
                            + "file writes it, e.g. {\"id\": 1, \"backing\": \"ram\", \"size\": \"1G\"}");
        }
        LunDefinition definition;
        try {
            definition = ConfigLoader.parseLun(lun.toString(), "lun.add params.lun", daemon.runningConfig(), target);
        } catch (ConfigException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
        }
        requireDirectory(definition, "lun.add params.lun");
        change(new RegistryOperation.AddLun(target.name(), definition));
        return JSON.objectNode().put("target", target.name()).put("id", definition.id());
    }

    /** {@code {"target": NAME, "id": N}}. */
    private JsonNode removeLun(JsonNode params) throws AdminError {
        TargetDefinition target = target(params, "lun.remove");
        JsonNode id = params.get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new AdminError(AdminError.INVALID_PARAMS, "lun.remove: params.id (the LUN number) is required");
        }
        if (target.lun(id.asInt()) == null) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "lun.remove: params.id: target " + target.name() + " has no LUN " + id.asInt());
        }
        if (target.luns().size() == 1) { // as in a config file, a target has at least one LUN
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "lun.remove: params.id: LUN " + id.asInt() + " is the last " + "LUN of " + target.name()
                            + "; a target needs one (delete the target with target.delete)");
        }
        change(new RegistryOperation.RemoveLun(target.name(), id.asInt()));
        return JSON.objectNode().put("target", target.name()).put("id", id.asInt());
    }

    /** {@code {"target": NAME, "id": N, "size": "2G"}} ({@link ResizeRequest}): grows a LUN while it serves. */
    private JsonNode resizeLun(JsonNode params) throws AdminError {
        RegistryOperation.ResizeLun op = ResizeRequest.of(params, target(params, "lun.resize"));
        change(op);
        return JSON.objectNode().put("target", op.target()).put("id", op.lun()).put("size", op.sizeBytes());
    }

    /** {@code {"level": "debug", "logger": NAME}}; without a logger the root level. */
    private JsonNode logLevel(JsonNode params) throws AdminError {
        String name = params.path("logger").asText(Logger.ROOT_LOGGER_NAME);
        String wanted = text(params, "level");
        Level level = Level.toLevel(wanted, null);
        if (level == null) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "log.level: params.level: \"" + wanted
                            + "\" is not a level (use error, warn, info, debug or trace)");
        }
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            throw new AdminError(AdminError.FAILED, "log.level: the logging backend is not logback");
        }
        Level before = context.getLogger(name).getEffectiveLevel();
        context.getLogger(name).setLevel(level);
        AUDIT.info("admin: log level of {} {} -> {}", name, before, level);
        return JSON.objectNode()
                .put("logger", name)
                .put("level", level.toString())
                .put("was", before.toString());
    }

    /** The gateway group's own requests. */
    private JsonNode groupCall(String method, JsonNode params) throws AdminError {
        if (group == null) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    method + ": this gateway is not a member of a gateway group"
                            + " (a group: section in its config file makes it one)");
        }
        try {
            return switch (method) {
                case "group.status" -> group.status();
                case "group.move" -> {
                    JsonNode lun = params.get("lun");
                    if (lun == null || !lun.canConvertToInt()) {
                        throw new AdminError(
                                AdminError.INVALID_PARAMS, "group.move: params.lun (the LUN number) is" + " required");
                    }
                    yield group.move(text(params, "target"), lun.asInt(), text(params, "member"));
                }
                case "group.rebalance" -> group.rebalance();
                case "group.member-remove" -> group.removeMember(text(params, "member"));
                default -> group.restore();
            };
        } catch (IllegalArgumentException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, method + ": " + e.getMessage());
        } catch (IOException e) {
            throw new AdminError(AdminError.FAILED, method + ": " + e.getMessage());
        } finally {
            if (!method.equals("group.status")) {
                audit(method + " " + params);
            }
        }
    }

    void change(RegistryOperation op) throws AdminError {
        changeAll(List.of(op));
    }

    /**
     * Applies one request's operations: here, one by one (a target's creation undone when one of its LUNs fails); in a
     * gateway group, as one change of the group's configuration that every member applies.
     */
    void changeAll(List<RegistryOperation> ops) throws AdminError {
        if (group != null) {
            try {
                JsonNode outcome = group.change(ops);
                audit(ops + " in the gateway group: " + outcome);
            } catch (IllegalArgumentException e) {
                AUDIT.warn("admin: {} refused: {}", ops, e.getMessage());
                throw new AdminError(AdminError.INVALID_PARAMS, e.getMessage());
            } catch (IOException e) {
                AUDIT.warn("admin: {} failed: {}", ops, e.getMessage());
                throw new AdminError(AdminError.FAILED, e.getMessage());
            }
            return;
        }
        for (int i = 0; i < ops.size(); i++) {
            try {
                changeHere(ops.get(i));
            } catch (AdminError e) {
                if (i > 0 && ops.get(0) instanceof RegistryOperation.AddTarget added) {
                    changeHere(new RegistryOperation.RemoveTarget(added.target().name())); // all or nothing
                }
                throw e;
            }
        }
    }

    private void changeHere(RegistryOperation op) throws AdminError {
        try {
            daemon.apply(op);
        } catch (IOException | RuntimeException e) {
            AUDIT.warn("admin: {} failed: {}", op, e.getMessage());
            throw new AdminError(AdminError.FAILED, op + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminError(AdminError.FAILED, op + ": interrupted");
        }
        audit(op.toString());
    }

    /**
     * A file LUN's directory must exist unless it lies in the data directory: a request, unlike the config file an
     * admin wrote, does not create directories elsewhere (a mistyped path would leave a stray tree behind).
     */
    void requireDirectory(LunDefinition lun, String source) throws AdminError {
        if (lun.path() == null) {
            return;
        }
        Path dir = lun.path().toAbsolutePath().getParent();
        Path dataDir = daemon.runningConfig().daemon().dataDir().toAbsolutePath();
        if (dir != null && !dir.startsWith(dataDir) && !Files.isDirectory(dir)) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    source + ": path: directory " + dir + " does not exist "
                            + "(directories are created only inside the data directory " + dataDir + ")");
        }
    }

    /** Refuses a request with a key {@code method} does not take, naming it and the keys it does. */
    static void knownKeys(JsonNode params, String method, List<String> known, String knownText) throws AdminError {
        var names = params.fieldNames();
        while (names.hasNext()) {
            String key = names.next();
            if (!known.contains(key)) {
                throw new AdminError(
                        AdminError.INVALID_PARAMS,
                        method + ": params." + key + ": unknown key (known keys: " + knownText + ")");
            }
        }
    }

    /** One audit line for a change done. */
    void audit(String change) {
        AUDIT.info("admin: {}", change);
    }

    /** The running target that {@code params.target} names. */
    TargetDefinition target(JsonNode params, String method) throws AdminError {
        String name = text(params, "target");
        for (TargetDefinition t : daemon.runningConfig().targets()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new AdminError(AdminError.INVALID_PARAMS, method + ": params.target: no target named " + name);
    }

    private static String text(JsonNode params, String field) throws AdminError {
        JsonNode v = params.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new AdminError(AdminError.INVALID_PARAMS, "params." + field + " is required (a string)");
        }
        return v.asText();
    }
}
