package io.numaiscsi.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads and validates the target configuration file. Each top-level section has its own small
 * reader class; adding a section means one class, one entry in {@link #SECTIONS}, one record
 * component in {@link TargetConfig} and its keys in {@link ConfigWriter}.
 */
public final class ConfigLoader {

    /** Name of the classpath resource holding the embedded default, next to this class. */
    static final String DEFAULT_RESOURCE = "default-config.yaml";

    private static final List<String> SECTIONS = List.of(
            DaemonSection.KEY,
            PortalsSection.KEY,
            IscsiSection.KEY,
            TargetsSection.KEY,
            CacheSection.KEY,
            NumaSection.KEY,
            LimitsSection.KEY,
            InitiatorsSection.DISCOVERY_KEY,
            InitiatorsSection.KEY,
            GroupSection.KEY);

    private ConfigLoader() {}

    /** Reads {@code file} (UTF-8) and validates it; errors name the file as given. */
    public static TargetConfig load(Path file) throws ConfigException {
        String source = file.toString();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException(source, 0, 0, "", "no such file", e);
        } catch (CharacterCodingException e) {
            throw new ConfigException(source, 0, 0, "", "is not UTF-8 text", e);
        } catch (IOException e) {
            throw new ConfigException(
                    source,
                    0,
                    0,
                    "",
                    "cannot be read: "
                            + (e instanceof AccessDeniedException
                                    ? "permission denied (run as a user who may read it)"
                                    : e.getMessage()),
                    e);
        }
        return parse(text, source);
    }

    /** Validates YAML text; {@code sourceName} starts every error message. */
    public static TargetConfig parse(String yamlText, String sourceName) throws ConfigException {
        Node root = LocatedTreeReader.read(yamlText, sourceName);
        Fields top = Cursor.root(sourceName, root).fields(SECTIONS);
        DaemonSettings daemon = DaemonSection.read(top);
        List<Portal> portals = PortalsSection.read(top);
        IscsiSettings iscsi = IscsiSection.read(top);
        ChapSection.Secrets secrets = new ChapSection.Secrets();
        ChapCredentials discoveryChap = InitiatorsSection.discovery(top, secrets);
        List<InitiatorDefinition> initiators = InitiatorsSection.read(top, secrets);
        GroupSettings group = GroupSection.read(top);
        List<TargetDefinition> targets;
        if (group == null) {
            targets = TargetsSection.read(top, daemon.dataDir(), secrets);
        } else if (top.optional(TargetsSection.KEY) != null) {
            throw top.optional(TargetsSection.KEY)
                    .error("are the gateway group's (group: " + group.name()
                            + "): a member's file has none; manage them with numa-iscsi-admin on any member");
        } else {
            targets = List.of();
        }
        CacheSettings cache = CacheSection.read(top);
        NumaSettings numa = NumaSection.read(top);
        LimitsSettings limits = LimitsSection.read(top);
        return new TargetConfig(daemon, portals, iscsi, targets, cache, numa, limits, discoveryChap, initiators, group);
    }

    /**
     * A LUN definition written on its own, as JSON or YAML ({@code {id: 2, backing: ram, size: 1G}}), for a LUN to be
     * added to {@code target} of the running {@code config}: the keys, values and messages of a config file's LUN
     * entry, plus a check against the LUNs already served (LUN id in the target, backing file anywhere). Errors start
     * with {@code sourceName}.
     */
    public static LunDefinition parseLun(String text, String sourceName, TargetConfig config, TargetDefinition target)
            throws ConfigException {
        return LunSection.readOne(
                entry(text, sourceName), config.daemon().dataDir(), target, config.targets(), config.group() != null);
    }

    /**
     * A target written on its own, as JSON or YAML, with its LUNs, for {@code config} to serve as well: the keys,
     * values and messages of a config file's target entry, checked against the targets already served (name, CHAP
     * secrets, backing files).
     */
    public static TargetDefinition parseTarget(String text, String sourceName, TargetConfig config)
            throws ConfigException {
        return TargetsSection.readOne(entry(text, sourceName), config);
    }

    /**
     * New settings ({@code alias, allow, allow-networks, chap}; absent keys take the file's defaults) for the running
     * {@code target} of {@code config}; its LUNs stay.
     */
    public static TargetDefinition parseTargetSettings(
            String text, String sourceName, TargetConfig config, TargetDefinition target) throws ConfigException {
        return TargetsSection.readSettings(entry(text, sourceName), target, config);
    }

    /**
     * A portal written on its own as a {@code portals:} item ({@code "host:port"} or {@code {address, transport,
     * connections}}), for a daemon listening on {@code running} to listen on as well.
     */
    public static Portal parsePortal(String text, String sourceName, List<Portal> running) throws ConfigException {
        return PortalsSection.readOne(entry(text, sourceName), running);
    }

    /**
     * New {@code discovery-chap:} credentials for the running {@code config}: the file's keys and messages, its
     * secrets checked against every other secret {@code config} uses (the discovery secrets it replaces excepted).
     */
    public static ChapCredentials parseDiscoveryChap(String text, String sourceName, TargetConfig config)
            throws ConfigException {
        ChapSection.Secrets others = ChapSection.Secrets.of(config.withChap(null, config.initiators()), null);
        return ChapSection.readOne(entry(text, sourceName), others);
    }

    /**
     * An {@code initiators:} entry ({@code {name, chap}}) on its own, replacing that initiator's in the running
     * {@code config}: its secrets are checked against every other secret {@code config} uses.
     */
    public static InitiatorDefinition parseInitiator(String text, String sourceName, TargetConfig config)
            throws ConfigException {
        Fields f = entry(text, sourceName).fields(InitiatorsSection.KEYS);
        String name = f.required("name").text();
        List<InitiatorDefinition> others = config.initiators().stream()
                .filter(i -> !i.name().equalsIgnoreCase(name))
                .toList();
        return InitiatorsSection.readOne(
                f, ChapSection.Secrets.of(config.withChap(config.discoveryChap(), others), null));
    }

    /**
     * A size as the config file writes it: bytes, or a binary K/M/G/T suffix ({@code 2G}).
     *
     * @throws IllegalArgumentException with the config file's message
     */
    public static long parseSize(String text) {
        return Sizes.parse(text);
    }

    /** One entry an admin request wrote on its own, as JSON or YAML; its errors start with {@code sourceName}. */
    private static Cursor entry(String text, String sourceName) throws ConfigException {
        return Cursor.root(sourceName, LocatedTreeReader.read(text, sourceName));
    }

    /** The data directory a config without {@code daemon.data-dir} uses, for this process's user. */
    public static Path defaultDataDir() {
        return DefaultDataDir.forThisProcess();
    }

    /** The embedded default: one target, one 1 GiB file LUN 0 "lun0.img", portal 127.0.0.1:3260, allow ALL. */
    public static TargetConfig embeddedDefault() {
        try {
            return parse(embeddedDefaultText(), DEFAULT_RESOURCE);
        } catch (ConfigException e) {
            throw new IllegalStateException("the embedded default configuration is invalid", e);
        }
    }

    /** The YAML text of the embedded default, comments included (a template for administrators). */
    public static String embeddedDefaultText() {
        try (InputStream in = ConfigLoader.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + DEFAULT_RESOURCE + " is missing from the config jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
