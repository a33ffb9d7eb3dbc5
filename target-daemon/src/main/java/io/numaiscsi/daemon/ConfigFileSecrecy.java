package io.numaiscsi.daemon;

import io.numaiscsi.blockdev.backstore.FileStatus;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.DaemonSettings;
import io.numaiscsi.config.TargetConfig;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A configuration file holding CHAP secrets should be readable by its owner alone: when group or others may read it,
 * a warning in the log, or a refusal to start with {@code daemon.secret-file-check: refuse}.
 */
final class ConfigFileSecrecy {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigFileSecrecy.class);

    private ConfigFileSecrecy() {}

    /** Logs the warning, or throws the refusal, {@code file} (which {@code config} was read from) calls for. */
    static void check(Path file, TargetConfig config) throws ConfigException {
        String warning = warning(file, config);
        if (warning != null) {
            LOG.warn("{}", warning);
        }
    }

    /** The warning {@code file} calls for (null: none), or the refusal thrown. */
    static String warning(Path file, TargetConfig config) throws ConfigException {
        String problem;
        try {
            problem = problem(file, config);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), 0, "", "cannot read its mode: " + Reasons.of(e));
        }
        if (problem == null) {
            return null;
        }
        if (config.daemon().secretFileCheck() == DaemonSettings.SecretFileCheck.REFUSE) {
            throw new ConfigException(file.toString(), 0, "", problem + " (daemon.secret-file-check: refuse)");
        }
        return file + ": " + problem + " (daemon.secret-file-check: refuse makes this a refusal)";
    }

    /** What is wrong, without the file name; null when the file holds no secret or only its owner may read it. */
    static String problem(Path file, TargetConfig config) throws IOException {
        if (!config.holdsSecrets()) {
            return null;
        }
        FileStatus s = FileStatus.of(file);
        if (!s.groupOrOtherReadable()) {
            return null;
        }
        return "holds CHAP secrets but is readable by group or others (mode " + s.mode() + "): chmod 600 " + file;
    }
}
