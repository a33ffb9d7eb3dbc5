package io.numaiscsi.daemon;

import ch.qos.logback.classic.Level;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaiscsi.blockdev.backstore.BackingInUseException;
import io.numaiscsi.blockdev.backstore.UnsafeFileException;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.DaemonSettings.EventModel;
import io.numaiscsi.config.Portal;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.daemon.admin.AdminMethods;
import io.numaiscsi.daemon.admin.AdminSocket;
import io.numaiscsi.daemon.group.GroupAdmin;
import io.numaiscsi.daemon.group.GroupMember;
import io.numaiscsi.daemon.metrics.DaemonMetrics;
import io.numaiscsi.daemon.metrics.MetricsEndpoint;
import io.numaiscsi.daemon.metrics.StatusPage;
import io.numaiscsi.daemon.placement.NodeLocalAllocator;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code numa-iscsi-target}: serves the configured targets until SIGTERM. */
@Command(
        name = "numa-iscsi-target",
        mixinStandardHelpOptions = true,
        version = "numa-iscsi-target 0.1.0",
        description =
                "NUMA-aware iSCSI block storage target. Without --config it serves one 1 GiB LUN on 127.0.0.1:3260. "
                        + "SIGHUP rereads the config file and adds or removes LUNs without disturbing sessions (LUNs added "
                        + "through the admin API too, unless saved with numa-iscsi-admin save).")
public final class Main implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);
    static final int EXIT_CONFIG = 2;
    static final int EXIT_STARTUP = 1;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "configuration file (YAML); default: the embedded default")
    Path configFile;

    @Option(
            names = "--portal",
            paramLabel = "HOST:PORT",
            description = "listen address; repeatable; overrides the config's portals")
    List<String> portals = new ArrayList<>();

    private final List<Portal> parsedPortals = new ArrayList<>();

    @Option(
            names = "--event-model",
            paramLabel = "MODEL",
            description = "PER_LUN (an event thread per LUN) or CENTRALIZED (one thread for everything, as tgtd); "
                    + "overrides daemon.event-model")
    EventModel eventModel;

    @Option(
            names = "--metrics",
            paramLabel = "HOST:PORT",
            description = "serve Prometheus metrics at http://HOST:PORT/metrics (off by default)")
    String metrics;

    @Option(
            names = "--admin-socket",
            paramLabel = "PATH|off",
            description = "Unix socket of the admin API (numa-iscsi-admin); default: admin.sock in the data directory")
    String adminSocket;

    @Option(
            names = "--log-level",
            paramLabel = "LEVEL",
            description = "error, warn, info (default), debug or trace; wins over daemon.log-level in the config, "
                    + "which wins over the NUMA_ISCSI_LOG_LEVEL environment variable; numa-iscsi-admin log-level "
                    + "changes it while running")
    String logLevel;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "directory for relative backing files; overrides the config")
    Path dataDir;

    @Option(
            names = "--check-config",
            paramLabel = "FILE",
            description = "check FILE as the daemon would at start (no portal, data directory or backing file is "
                    + "touched) and exit: 0 ok, " + EXIT_CONFIG + " with the problem on stderr")
    Path checkConfig;

    /** The --config file as last read or written; set at start. */
    private ConfigFile file;

    /** READY, RELOADING, STOPPING to systemd; nothing when not started by it. */
    private final SystemdNotifier systemd = SystemdNotifier.fromEnvironment();

    public static void main(String[] args) {
        NettyDefaults.applyUnlessAsked(); // before NodeLocalAllocator loads Netty's allocator classes
        NodeLocalAllocator.configureThreadCaches();
        System.exit(new CommandLine(new Main()).execute(args));
    }

    /** The config file, checked, or the embedded default. */
    private TargetConfig loadConfig() throws ConfigException {
        TargetConfig config = configFile == null ? ConfigLoader.embeddedDefault() : ConfigLoader.load(configFile);
        if (configFile != null) {
            ConfigFileSecrecy.check(configFile, config);
        }
        return config;
    }

    /**
     * SIGHUP: reads the config file again and applies what can change live (see {@link TargetDaemon#reload}), LUNs
     * added through the admin API and not saved to the file being removed too, after one warning naming them.
     */
    private void reload(TargetDaemon daemon) {
        systemd.reloading();
        try {
            TargetConfig reread = loadConfig();
            if (reread.group() != null) { // the targets are the group's: the file changes only what is local
                reread = reread.withTargets(daemon.runningConfig().targets());
            }
            List<String> unsaved = reread.group() != null
                    ? List.of()
                    : UnsavedLuns.droppedBy(daemon.runningConfig(), file.contents(), reread);
            if (!unsaved.isEmpty()) {
                LOG.warn(
                        "reload: removing {} LUN(s) added through the admin API that {} does not have: {} (a reload "
                                + "serves what the file says; numa-iscsi-admin save writes the running LUNs to the file, run "
                                + "it before a SIGHUP to keep them)",
                        unsaved.size(),
                        file.describe(),
                        String.join(", ", unsaved));
            }
            daemon.reload(withOverrides(reread));
            file.remember(reread);
            applyConfiguredLogLevel(reread);
        } catch (ConfigException e) {
            LOG.error("reload refused, nothing changed: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("reload failed: {}; the changes before it were applied (see the lines above)", Reasons.of(e));
            LOG.debug("reload failed", e);
        } finally {
            systemd.ready();
        }
    }

    /** {@code daemon.log-level} of {@code config}, unless --log-level was given (it wins). */
    private void applyConfiguredLogLevel(TargetConfig config) {
        String level = config.daemon().logLevel();
        if (logLevel == null && level != null) {
            setRootLogLevel(Level.toLevel(level));
        }
    }

    private static void setRootLogLevel(Level level) {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(level);
    }

    /** The --portal (parsed at start), --data-dir and --event-model overrides. */
    private TargetConfig withOverrides(TargetConfig config) {
        if (!parsedPortals.isEmpty()) {
            config = config.withPortals(parsedPortals);
        }
        if (dataDir != null) {
            config = config.withDataDir(dataDir);
        }
        if (eventModel != null) {
            config = config.withDaemon(config.daemon().withEventModel(eventModel));
        }
        return config;
    }

    @Override
    public Integer call() throws Exception {
        if (logLevel != null) {
            Level level = Level.toLevel(logLevel, null);
            if (level == null || !logLevel.matches("(?i)error|warn|info|debug|trace")) {
                System.err.println("--log-level " + logLevel + ": not a level (use error, warn, info, debug or trace)");
                return EXIT_CONFIG;
            }
            setRootLogLevel(level);
        }
        if (checkConfig != null) {
            return ConfigCheck.run(
                    checkConfig,
                    new PrintWriter(new OutputStreamWriter(System.out, Charset.defaultCharset()), true),
                    new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true));
        }
        TargetConfig config;
        try {
            config = loadConfig();
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return EXIT_CONFIG;
        }
        applyConfiguredLogLevel(config);
        file = new ConfigFile(configFile, config);
        for (String p : portals) {
            try {
                parsedPortals.add(Portal.parse(p));
            } catch (IllegalArgumentException e) {
                System.err.println("--portal " + p + ": " + e.getMessage());
                return EXIT_CONFIG;
            }
        }
        Portal metricsAt = null;
        if (metrics != null) {
            try {
                metricsAt = Portal.parse(metrics);
            } catch (IllegalArgumentException e) {
                System.err.println("--metrics " + metrics + ": " + e.getMessage());
                return EXIT_CONFIG;
            }
        }
        config = withOverrides(config);
        try {
            for (Portal p : config.portals()) {
                if (p.transport() == Portal.Transport.TCP) {
                    ListenPreflight.check("portal", p.host(), p.port());
                }
            }
            if (metricsAt != null) {
                ListenPreflight.check("--metrics", metricsAt.host(), metricsAt.port());
            }
        } catch (IOException e) {
            System.err.println("numa-iscsi-target: cannot start: " + e.getMessage());
            return EXIT_STARTUP;
        }
        GroupMember group = null;
        if (config.group() != null) {
            try {
                group = GroupMember.join(config);
            } catch (IOException e) {
                System.err.println("numa-iscsi-target: cannot start: " + e.getMessage());
                return EXIT_STARTUP;
            }
            config = config.withTargets(group.targets());
        }
        TargetDaemon daemon = new TargetDaemon(config);
        CountDownLatch stopRequested = new CountDownLatch(1);
        // SIGTERM/SIGINT end the daemon normally (exit 0 after flushing); a hook covers every other exit.
        ProcessSignals.onStop(() -> {
            systemd.stopping();
            stopRequested.countDown();
        });
        Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "shutdown"));
        ExecutorService reloads = Executors.newSingleThreadExecutor(new DefaultThreadFactory("reload", true));
        ProcessSignals.onHangUp(() -> reloads.execute(() -> reload(daemon)));
        try {
            daemon.start();
        } catch (UnsafeFileException | BackingInUseException e) {
            System.err.println("numa-iscsi-target: cannot start: " + e.getMessage());
            daemon.close();
            return EXIT_STARTUP;
        } catch (Exception e) {
            System.err.println("numa-iscsi-target: cannot start: " + Reasons.of(e));
            LOG.debug("start failed", e);
            daemon.close();
            if (group != null) {
                group.close();
            }
            return EXIT_STARTUP;
        }
        if (group != null) {
            group.serve(daemon);
        }
        MetricsEndpoint endpoint = null;
        if (metricsAt != null) {
            try {
                DaemonMetrics metrics = new DaemonMetrics(
                                daemon.threadStats(), daemon.sessions(), daemon::cachedLuns, daemon.bufferMetric())
                        .guards(daemon.guards())
                        .luns(daemon::measuredLuns)
                        .iserPortals(daemon::measuredIserPortals);
                if (group != null) {
                    metrics.group(group);
                }
                endpoint = new MetricsEndpoint(
                        metricsAt.host(),
                        metricsAt.port(),
                        metrics,
                        new StatusPage(daemon.registry()::targets, daemon.registry()::luns, daemon.sessions()));
            } catch (Exception e) {
                System.err.println("numa-iscsi-target: cannot start: --metrics " + metrics + ": " + Reasons.of(e));
                LOG.debug("metrics endpoint failed", e);
                daemon.close();
                return EXIT_STARTUP; // the address was checked free before the start: a start refused, not an option
            }
        }
        AdminSocket admin = null;
        if (!"off".equals(adminSocket)) {
            Path at = adminSocket != null
                    ? Path.of(adminSocket)
                    : config.daemon().dataDir().resolve(AdminSocket.FILE_NAME);
            try {
                admin = AdminSocket.open(
                        at, new AdminMethods(daemon, file, group == null ? null : new GroupAdmin(group)));
            } catch (AdminSocket.PathTooLongException e) {
                if (adminSocket != null) {
                    System.err.println("--admin-socket: " + e.getMessage());
                    if (endpoint != null) {
                        endpoint.close();
                    }
                    daemon.close();
                    return EXIT_CONFIG;
                }
                LOG.warn("no admin API: {}", e.getMessage()); // a deep data directory must not stop the target
            } catch (IOException e) {
                System.err.println("numa-iscsi-target: cannot start: " + e.getMessage());
                if (endpoint != null) {
                    endpoint.close();
                }
                daemon.close();
                return EXIT_STARTUP;
            }
        }
        systemd.ready(); // every portal listens (daemon.start), metrics and the admin socket too
        stopRequested.await();
        if (admin != null) {
            admin.close();
        }
        if (group != null) {
            group.close(); // no group change is applied while the daemon stops
        }
        daemon.logOutSessions();
        if (endpoint != null) {
            endpoint.close();
        }
        daemon.close();
        return 0;
    }
}
