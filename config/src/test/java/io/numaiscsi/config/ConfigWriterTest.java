package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.WritePolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The writer's text reads back into an equal configuration, and reads as an administrator would write it. */
class ConfigWriterTest {

    /** Writes {@code config}, reads the text back and checks both are equal; the text, for further checks. */
    private static String roundTrip(TargetConfig config, String what) throws ConfigException {
        String text = ConfigWriter.write(config);
        TargetConfig read;
        try {
            read = ConfigLoader.parse(text, "written.yaml");
        } catch (ConfigException e) {
            throw new AssertionError(what + ": the written text does not load: " + e.getMessage() + "\n" + text, e);
        }
        assertEquals(config, read, what + " read back from\n" + text);
        assertEquals(text, ConfigWriter.write(read), what + ": writing what was read gives the same text");
        return text;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEmbeddedDefaultIsWrittenWithoutItsDefaults() throws ConfigException {
        String text = roundTrip(ConfigLoader.embeddedDefault(), "the embedded default");
        assertEquals("""
                # numa-iscsi-target configuration, written from a running configuration.
                # Keys left out take their defaults; config/README.md describes every key.
                daemon:
                  data-dir: %s
                portals:
                  - 127.0.0.1:3260
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    alias: disk0
                    luns:
                      - id: 0
                        backing: file
                        path: lun0.img
                        size: 1G
                """.formatted(DefaultDataDir.forThisProcess()), text);
    }

    /** The example and test configuration files of the repository, and the YAML examples of its READMEs. */
    @Test
    void everyConfigFileAndReadmeExampleInTheRepositoryRoundTrips() throws IOException, ConfigException {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve(".git"))) {
            root = root.getParent();
        }
        List<Path> files;
        try (Stream<Path> all = Files.walk(root)) {
            files = all.filter(p ->
                            !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".md"))
                    .sorted()
                    .toList();
        }
        int configs = 0;
        for (Path f : files) {
            for (String yaml : configsIn(f)) {
                roundTrip(
                        ConfigLoader.parse(yaml, f.toString()),
                        root.relativize(f).toString());
                configs++;
            }
        }
        assertTrue(configs >= 15, "found only " + configs + " configurations under " + root);
    }

    /** A .yaml file with targets, or each ```yaml block of a .md file with targets. */
    private static List<String> configsIn(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        if (file.toString().endsWith(".yaml")) {
            if (text.contains("targets:")) {
                out.add(text);
            }
            return out;
        }
        Matcher m = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            if (m.group(1).contains("targets:")) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** Every key of every section away from its default, and text that YAML would misread if written plain. */
    static TargetConfig everyField() {
        Path dataDir = Path.of("/srv/numa iscsi");
        DaemonSettings daemon = new DaemonSettings(
                dataDir,
                16,
                DaemonSettings.EventModel.CENTRALIZED,
                DaemonSettings.SecretFileCheck.REFUSE,
                DaemonSettings.BackingIo.IO_URING,
                "debug",
                DaemonSettings.TcpTransport.IO_URING,
                Duration.ofNanos(20_000),
                Duration.ofNanos(500_000));
        List<Portal> portals = List.of(
                new Portal("0.0.0.0", 3260),
                new Portal("::1", 3261),
                new Portal("storage1.example.com", 3262),
                new Portal("10.0.0.1", 3260, Portal.Transport.ISER, 64),
                new Portal("10.0.0.2", 3260, Portal.Transport.ISER));
        IscsiSettings iscsi = new IscsiSettings(
                65_536,
                262_144,
                65_536,
                8,
                false,
                true,
                256,
                List.of("CRC32C"),
                List.of("CRC32C", "None"),
                0,
                20,
                Duration.ofMillis(500),
                Duration.ofMinutes(2));
        LimitsSettings limits = new LimitsSettings(
                100,
                10,
                1L << 30,
                50,
                5,
                Duration.ofSeconds(30),
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                32L << 20,
                3L << 30);
        CacheSettings cache = new CacheSettings(
                CacheSettings.Mode.PAGE_CACHE,
                256L << 20,
                128 << 10,
                8,
                2,
                32 << 10,
                WritePolicy.WRITE_BACK,
                CacheSettings.ZERO_COPY_OFF,
                0.125,
                Duration.ofMillis(1500),
                false);
        NumaSettings numa = new NumaSettings(4, NumaSettings.Placement.PORTAL_NODE);
        ChapCredentials discovery = new ChapCredentials("discover", utf8("discovery-secret-16"), null, null);
        List<InitiatorDefinition> initiators = List.of(new InitiatorDefinition(
                "iqn.1994-05.com.redhat:client1",
                new ChapCredentials("client1", utf8("client1 secret: #16"), "disk0", utf8("target \"secret\" \\16"))));
        TargetDefinition db = new TargetDefinition(
                "iqn.2026-11.io.numaiscsi:db",
                "database volumes: #1",
                List.of("iqn.1994-05.com.redhat:client1", "eui.02004567A425678D"),
                List.of(
                        new LunDefinition(
                                0,
                                BackingType.FILE,
                                dataDir.resolve("db/data.img"),
                                10L << 30,
                                4096,
                                "DB-0001",
                                new FaultInjection(Duration.ofMillis(200), 5, 1L << 20),
                                16384,
                                true,
                                85,
                                null),
                        new LunDefinition(
                                7,
                                BackingType.RAM,
                                null,
                                268_435_456L + 512,
                                512,
                                "null",
                                new FaultInjection(Duration.ZERO, 0, 0),
                                LunDefinition.FROM_DEVICE,
                                false,
                                LunDefinition.NO_THRESHOLD,
                                null)),
                new ChapCredentials("shared", utf8("shared-secret-ü-16"), "db", utf8("db-target-secret")),
                List.of(NetworkRange.parse("127.0.0.0/8"), NetworkRange.parse("fd00::/8")),
                new AluaDefinition(
                        3,
                        2,
                        "active-non-optimized",
                        List.of(new AluaDefinition.Peer(1, "active-optimized", List.of(1, 2)))),
                new SharedReservationsDefinition("file", Path.of("/dev/shm/db-pair")),
                List.of(
                        new LunMap(
                                List.of("iqn.1994-05.com.redhat:client1"),
                                List.of(new LunMap.Mapped(0, 0), new LunMap.Mapped(7, 1))),
                        new LunMap(List.of("*"), List.of(new LunMap.Mapped(7, 0)))));
        TargetDefinition scratch = new TargetDefinition(
                "naa.52004567BA64678D",
                null,
                List.of(),
                List.of(
                        new LunDefinition(
                                0,
                                BackingType.FILE,
                                Path.of("/mnt/fast/scratch.img"),
                                2L << 40,
                                512,
                                null,
                                new FaultInjection(Duration.ofSeconds(2), 0, Long.MAX_VALUE),
                                LunDefinition.FROM_DEVICE,
                                false,
                                LunDefinition.NO_THRESHOLD,
                                null),
                        new LunDefinition(
                                1,
                                BackingType.RBD,
                                null,
                                LunDefinition.FROM_DEVICE,
                                4096,
                                null,
                                FaultInjection.NONE,
                                LunDefinition.FROM_DEVICE,
                                false,
                                LunDefinition.NO_THRESHOLD,
                                new RbdSource(
                                        "iscsi",
                                        "vol1",
                                        Path.of("/etc/ceph/site.conf"),
                                        "gw",
                                        Path.of("/etc/ceph/gw.keyring"),
                                        Duration.ofSeconds(15),
                                        true))),
                null,
                List.of(),
                new AluaDefinition(
                        1, 1, "active-optimized", List.of(new AluaDefinition.Peer(2, "standby", List.of(2)))),
                SharedReservationsDefinition.rados(
                        "pr", Path.of("/etc/ceph/site.conf"), "gw", Path.of("/etc/ceph/gw.keyring")),
                List.of());
        return new TargetConfig(
                daemon, portals, iscsi, List.of(db, scratch), cache, numa, limits, discovery, initiators, null);
    }

    @Test
    void aConfigWithEveryKeyAwayFromItsDefaultRoundTripsAndWritesEveryKey() throws ConfigException {
        String text = roundTrip(everyField(), "every field");
        List<List<String>> keyLists = List.of(
                List.of(
                        DaemonSection.KEY,
                        PortalsSection.KEY,
                        IscsiSection.KEY,
                        LimitsSection.KEY,
                        CacheSection.KEY,
                        NumaSection.KEY,
                        InitiatorsSection.DISCOVERY_KEY,
                        InitiatorsSection.KEY,
                        TargetsSection.KEY),
                DaemonSection.KEYS,
                IscsiSection.KEYS,
                LimitsSection.KEYS,
                CacheSection.KEYS,
                NumaSection.KEYS,
                InitiatorsSection.KEYS,
                ChapSection.KEYS,
                TargetsSection.KEYS,
                LunSection.KEYS.stream().filter(k -> !k.equals("owner")).toList(),
                List.of("address", "transport", "connections"),
                List.of("group", "state", "port", "peers", "ports"),
                SharedReservationsSection.KEYS);
        for (List<String> keys : keyLists) {
            for (String key : keys) {
                assertTrue(
                        Pattern.compile("(?m)^ *(- )?" + Pattern.quote(key) + ":")
                                .matcher(text)
                                .find(),
                        key + " is written:\n" + text);
            }
        }
        assertTrue(text.contains("""
                  - id: 0
                    backing: file
                    path: db/data.img
                    size: 10G
                    block-size: 4096
                    physical-block-size: 16384
                    read-only: true
                    soft-threshold: 85%
                    serial: DB-0001
                    inject-latency: 200ms
                    inject-medium-error-every: 5
                    inject-no-space-after: 1M
                """.indent(4)), text);
        assertTrue(text.contains("  - \"[::1]:3261\"\n"), text);
        assertTrue(text.contains("alias: \"database volumes: #1\"\n"), text);
        assertTrue(text.contains("serial: \"null\"\n"), "a serial \"null\" is no null: " + text);
        assertTrue(text.contains("header-digest: [CRC32C]\n"), text);
    }

    @Test
    void randomConfigurationsRoundTrip() throws ConfigException {
        for (long seed = 0; seed < 400; seed++) {
            roundTrip(new RandomConfigs(seed).next(), "seed " + seed);
        }
    }

    @Test
    void sizesAndDurationsAreWrittenInTheLargestExactUnit() {
        assertEquals("1G", Sizes.format(1L << 30));
        assertEquals("1536M", Sizes.format(3L << 29));
        assertEquals("2T", Sizes.format(2L << 40));
        assertEquals("512K", Sizes.format(512 << 10));
        assertEquals("268435968", Sizes.format(268_435_456L + 512));
        assertEquals("1000", Sizes.format(1000));
        assertEquals("500ms", ConfigWriter.duration(Duration.ofMillis(500)));
        assertEquals("1500ms", ConfigWriter.duration(Duration.ofMillis(1500)));
        assertEquals("90s", ConfigWriter.duration(Duration.ofSeconds(90)));
        assertEquals("2m", ConfigWriter.duration(Duration.ofMinutes(2)));
        assertEquals("1h", ConfigWriter.duration(Duration.ofHours(1)));
        assertEquals("0", ConfigWriter.duration(Duration.ZERO));
    }

    @Test
    void aRatioIsAFractionWhenOneReadsBackExactlyElseAPercentage() {
        assertEquals("0.2", ConfigWriter.ratio(0.2));
        assertEquals("0.125", ConfigWriter.ratio(12.5 / 100));
        double third = 33.333333 / 100;
        assertEquals("33.333333%", ConfigWriter.ratio(third));
        assertEquals("0.000001", ConfigWriter.ratio(0.000001));
    }

    @Test
    void pathsUnderTheDataDirectoryAreRelativeOthersAbsolute() {
        Path dir = Path.of("/data/iscsi");
        assertEquals("a.img", ConfigWriter.path(Path.of("/data/iscsi/a.img"), dir));
        assertEquals("sub/b.img", ConfigWriter.path(Path.of("/data/iscsi/sub/b.img"), dir));
        assertEquals("/data/iscsi-other/c.img", ConfigWriter.path(Path.of("/data/iscsi-other/c.img"), dir));
        assertEquals("/elsewhere/d.img", ConfigWriter.path(Path.of("/elsewhere/d.img"), dir));
        assertEquals("/data/iscsi", ConfigWriter.path(dir, dir), "never an empty path");
    }

    @Test
    void textIsPlainOnlyWhenItReadsBackTheSame() {
        for (String plain : List.of(
                "disk0",
                "iqn.2026-11.io.numaiscsi:disk0",
                "127.0.0.1:3260",
                "database volumes",
                "yes",
                "0123",
                "/srv/a b/c.img",
                "fd00::/8")) {
            assertEquals(plain, YamlText.scalar(plain));
        }
        assertEquals("\"a: b\"", YamlText.scalar("a: b"));
        assertEquals("\"x #y\"", YamlText.scalar("x #y"));
        assertEquals("\"null\"", YamlText.scalar("null"));
        assertEquals("\"~\"", YamlText.scalar("~"));
        assertEquals("\"\"", YamlText.scalar(""));
        assertEquals("\"say \\\"hi\\\" \\\\ there\"", YamlText.scalar("say \"hi\" \\ there"));
        assertEquals("\"line\\u000abreak\\u2028\"", YamlText.scalar("line\nbreak\u2028"));
    }

    @Test
    void aConfigTheLoaderWouldRefuseIsWrittenAndRefusedOnReading() {
        TargetConfig config = ConfigLoader.embeddedDefault();
        TargetConfig noLuns = config.withTargets(List.of(config.targets().get(0).withLuns(List.of())));
        String text = ConfigWriter.write(noLuns);
        assertTrue(text.contains("    luns: []\n"), text);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(text, "saved.yaml"));
        assertEquals("targets[0].luns", e.keyPath());
        assertFalse(ConfigWriter.write(config).contains("[]"));
    }
}
