package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.daemon.AtomicConfigWriter;
import io.numaiscsi.daemon.ConfigFile;
import io.numaiscsi.daemon.TargetDaemon;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code config.save} {@code {"path": FILE}}: the running configuration written to the daemon's config file, or to
 * {@code params.path}, with {@link AtomicConfigWriter}. What is written is the file's own settings (as last read,
 * without the {@code --portal}, {@code --data-dir} and {@code --event-model} overrides) with the targets and LUNs
 * served now, so that the daemon started again with the same command line serves what it serves now.
 */
final class ConfigSave {
    private static final Logger AUDIT = LoggerFactory.getLogger("audit");

    private final TargetDaemon daemon;
    private final ConfigFile file;

    ConfigSave(TargetDaemon daemon, ConfigFile file) {
        this.daemon = daemon;
        this.file = file;
    }

    /** One save at a time: a second waits, then writes what is running then. */
    synchronized JsonNode call(JsonNode params) throws AdminError {
        Path path = path(params);
        TargetConfig saved = toSave(daemon.runningConfig(), daemon.startConfig(), file.contents());
        Path written;
        try {
            written = AtomicConfigWriter.write(path, saved);
        } catch (ConfigException e) {
            AUDIT.warn("admin: config.save to {} refused: {}", path, e.getMessage());
            throw new AdminError(
                    AdminError.FAILED,
                    "config.save: the running configuration does not make a valid "
                            + "config file, nothing was written: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            String reason = io.numaiscsi.daemon.Reasons.of(e);
            AUDIT.warn("admin: config.save to {} failed: {}", path, reason);
            throw new AdminError(
                    AdminError.FAILED,
                    "config.save: cannot write " + path + ": " + reason
                            + " (save writes a temporary file beside it: the directory must exist and be writable by the "
                            + "daemon's user)");
        }
        if (isTheConfigFile(written)) {
            file.remember(saved);
        }
        int luns = saved.targets().stream().mapToInt(t -> t.luns().size()).sum();
        AUDIT.info(
                "admin: saved the running configuration to {} ({} targets, {} LUNs)",
                written,
                saved.targets().size(),
                luns);
        return JsonNodeFactory.instance
                .objectNode()
                .put("path", written.toString())
                .put("targets", saved.targets().size())
                .put("luns", luns);
    }

    /**
     * The running targets over the file's settings. LUN paths under the data directory in force (the file's, or
     * {@code --data-dir}'s) move to the file's, where the file's relative paths resolve: {@code --data-dir} given
     * again moves them back, as it did at start. The portals and the discovery and per-initiator CHAP are the file's
     * unless the admin API changed them since {@code started}: then the running ones (a {@code --portal} override
     * alone is not saved).
     */
    static TargetConfig toSave(TargetConfig running, TargetConfig started, TargetConfig fileContents) {
        TargetConfig saved = fileContents.withTargets(
                running.withDataDir(fileContents.daemon().dataDir()).targets());
        if (!running.portals().equals(started.portals())) {
            saved = saved.withPortals(running.portals());
        }
        if (!Objects.equals(running.discoveryChap(), started.discoveryChap())
                || !running.initiators().equals(started.initiators())) {
            saved = saved.withChap(running.discoveryChap(), running.initiators());
        }
        return saved;
    }

    private Path path(JsonNode params) throws AdminError {
        JsonNode p = params.get("path");
        if (p == null || p.isNull()) {
            if (file.path() == null) {
                throw new AdminError(
                        AdminError.INVALID_PARAMS,
                        "config.save: params.path is required: the daemon "
                                + "runs the embedded default configuration (no --config file to save to)");
            }
            return file.path();
        }
        if (!p.isTextual() || p.asText().isBlank()) {
            throw new AdminError(AdminError.INVALID_PARAMS, "config.save: params.path must be a file name (a string)");
        }
        Path path;
        try {
            path = Path.of(p.asText());
        } catch (InvalidPathException e) {
            throw new AdminError(AdminError.INVALID_PARAMS, "config.save: params.path: " + e.getMessage());
        }
        if (!path.isAbsolute()) {
            throw new AdminError(
                    AdminError.INVALID_PARAMS,
                    "config.save: params.path: \"" + path + "\" must be an "
                            + "absolute path (the daemon's working directory is not the caller's)");
        }
        return path;
    }

    /** Whether {@code written} is the --config file, whose SIGHUP now finds the saved LUNs there. */
    private boolean isTheConfigFile(Path written) {
        try {
            return file.path() != null && Files.isSameFile(written, file.path());
        } catch (IOException e) {
            return false;
        }
    }
}
