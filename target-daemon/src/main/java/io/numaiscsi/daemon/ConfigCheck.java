package io.numaiscsi.daemon;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.TargetConfig;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * {@code --check-config FILE}: the checks the daemon makes of its config file before it starts anything (the loader's
 * and the secrecy of a file with CHAP secrets), and nothing else: no data directory, backing file or portal is
 * touched. Exit code 0 with {@code FILE: ok (N targets, M LUNs)}, or {@link Main#EXIT_CONFIG} with the problem.
 */
final class ConfigCheck {

    private ConfigCheck() {}

    static int run(Path file, PrintWriter out, PrintWriter err) {
        TargetConfig config;
        String warning;
        try {
            config = ConfigLoader.load(file);
            warning = ConfigFileSecrecy.warning(file, config);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return Main.EXIT_CONFIG;
        }
        if (warning != null) {
            err.println("warning: " + warning);
        }
        int luns = config.targets().stream().mapToInt(t -> t.luns().size()).sum();
        out.println(file + ": ok (" + config.targets().size() + " targets, " + luns + " LUNs)");
        return 0;
    }
}
