package io.numaiscsi.config;

import io.numaiscsi.blockdev.WritePolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Valid configurations drawn from a seed: every key at its default or at a value in its range, sizes and durations
 * exact in some unit or not, and text YAML could misread (comment and mapping indicators, quotes, null and boolean
 * words, numbers, non-ASCII) in every free-text field.
 */
final class RandomConfigs {
    private static final List<String> TEXT = List.of(
            "disk",
            "database volumes",
            "a: b",
            "x #y",
            "# z",
            "say \"hi\"",
            "back\\slash",
            "über Ω",
            "-dash",
            "[x]",
            "{y}",
            "null",
            "~",
            "yes",
            "NO",
            "0123",
            "1e3",
            ".inf",
            " lead",
            "trail ",
            "colon:",
            "%pct",
            "@at",
            "&anchor",
            "*alias",
            "!tag",
            "|pipe",
            ">fold",
            "'single'",
            "日本語",
            "a,b",
            "=",
            "? q",
            "1:20",
            "two  spaces");
    private static final List<String> DATA_DIRS =
            List.of("/srv/iscsi", "/var/lib/numa iscsi", "/data/#1", "/x/y: z", "/tmp/ü", "/-dash", "/null");
    private static final List<String> NETWORKS =
            List.of("127.0.0.0/8", "10.0.0.0/8", "192.168.1.0/24", "fd00::/8", "::1/128", "1.2.3.4/32", "0.0.0.0/0");
    private static final List<List<String>> DIGESTS =
            List.of(List.of("None", "CRC32C"), List.of("CRC32C", "None"), List.of("None"), List.of("CRC32C"));
    private static final String SECRET_CHARS = "abcXYZ019 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~éΩ日";

    private final Random random;
    private final Set<String> secrets = new HashSet<>();

    RandomConfigs(long seed) {
        this.random = new Random(seed);
    }

    TargetConfig next() {
        secrets.clear();
        DaemonSettings daemon = new DaemonSettings(
                Path.of(pick(DATA_DIRS)),
                coin() ? 4 : between(1, 256),
                pick(DaemonSettings.EventModel.values()),
                pick(DaemonSettings.SecretFileCheck.values()),
                pick(DaemonSettings.BackingIo.values()),
                null,
                pick(DaemonSettings.TcpTransport.values()),
                coin() ? Duration.ZERO : Duration.ofNanos(between(1, 1000) * 1000L),
                coin() ? Duration.ZERO : Duration.ofNanos(between(1, 10_000) * 1000L));
        List<InitiatorDefinition> initiators = new ArrayList<>();
        for (int i = between(0, 2); i > 0; i--) {
            initiators.add(new InitiatorDefinition("iqn.1994-05.com.example:client" + i, chap()));
        }
        return new TargetConfig(
                daemon,
                portals(),
                iscsi(),
                targets(daemon.dataDir()),
                cache(),
                numa(),
                limits(),
                coin() ? null : chap(),
                initiators,
                null);
    }

    private List<Portal> portals() {
        Set<String> seen = new HashSet<>();
        List<Portal> out = new ArrayList<>();
        for (int i = between(1, 3); i > 0; i--) {
            String host = pick(List.of("127.0.0.1", "::1", "0.0.0.0", "storage-1.Example.com", "fd00::2"));
            Portal p = new Portal(host, coin() ? Portal.DEFAULT_PORT : between(1, 65535));
            if (coin()) {
                p = p.withTransport(Portal.Transport.ISER)
                        .withConnections(
                                coin() ? Portal.DEFAULT_ISER_CONNECTIONS : between(1, Portal.MAX_ISER_CONNECTIONS));
            }
            if (seen.add(p.toString().toLowerCase(Locale.ROOT) + " " + p.transport())) {
                out.add(p);
            }
        }
        return out;
    }

    private IscsiSettings iscsi() {
        int maxBurst = between(512, 16_777_215);
        return new IscsiSettings(
                between(512, 16_777_215),
                maxBurst,
                between(512, maxBurst),
                between(1, 65_535),
                coin(),
                coin(),
                between(1, 4096),
                pick(DIGESTS),
                pick(DIGESTS),
                between(0, 3600),
                between(0, 3600),
                coin() ? Duration.ZERO : duration(100, 3_600_000),
                duration(1000, 3_600_000));
    }

    private LimitsSettings limits() {
        if (coin()) {
            return LimitsSettings.DEFAULT;
        }
        int maxSessions = between(1, 65_535);
        int maxLogins = between(1, 65_535);
        Duration login = duration(1000, 3_600_000);
        return new LimitsSettings(
                maxSessions,
                between(1, maxSessions),
                size(64L << 10, 64L << 30),
                maxLogins,
                between(1, maxLogins),
                login,
                duration(1000, login.toMillis()),
                duration(1000, 3_600_000),
                size(64L << 10, 64L << 30),
                size(16L << 20, 1L << 40));
    }

    private CacheSettings cache() {
        if (coin()) {
            return CacheSettings.DEFAULT;
        }
        int partitions = between(1, 256);
        int blockSize = 1 << between(12, 20);
        long sizePerNode = coin()
                ? CacheSettings.SIZE_AUTO
                : size(
                        Math.max(1L << 20, 2L * partitions * blockSize),
                        Math.min(partitions * (Integer.MAX_VALUE - 4096L), 1L << 40));
        return new CacheSettings(
                pick(CacheSettings.Mode.values()),
                sizePerNode,
                blockSize,
                partitions,
                between(1, 64),
                (int) size(1, 1 << 30),
                pick(WritePolicy.values()),
                coin() ? CacheSettings.ZERO_COPY_OFF : (int) size(1, 1 << 30),
                ratio(),
                duration(100, 3_600_000),
                coin());
    }

    /** A ratio as the loader computes it from a fraction or a percentage. */
    private double ratio() {
        int decimals = between(1, 6);
        long scale = (long) Math.pow(10, decimals);
        if (coin()) {
            long n = 1 + random.nextLong(scale - 1);
            return Double.parseDouble(String.format(Locale.ROOT, "0.%0" + decimals + "d", n));
        }
        long n = 1 + random.nextLong(100 * scale - 1);
        return Double.parseDouble(n / scale + "." + String.format(Locale.ROOT, "%0" + decimals + "d", n % scale)) / 100;
    }

    private NumaSettings numa() {
        return new NumaSettings(coin() ? 0 : between(2, 64), pick(NumaSettings.Placement.values()));
    }

    private List<TargetDefinition> targets(Path dataDir) {
        List<TargetDefinition> out = new ArrayList<>();
        for (int t = between(1, 3); t > 0; t--) {
            String name = t == 2 ? "eui.02004567A425678" + t : "iqn.2026-11.io.numaiscsi:t" + t + "-" + between(0, 99);
            List<String> allow = new ArrayList<>();
            for (int i = between(0, 2); i > 0; i--) {
                allow.add(i == 1 ? "iqn.1994-05.com.example:client" + between(0, 9) + "x" : "naa.52004567BA64678D");
            }
            List<NetworkRange> networks = new ArrayList<>();
            for (String n : new LinkedHashSet<>(List.of(pick(NETWORKS), pick(NETWORKS)))) {
                if (coin()) {
                    networks.add(NetworkRange.parse(n));
                }
            }
            out.add(new TargetDefinition(
                    name,
                    coin() ? null : pick(TEXT),
                    allow,
                    luns(t, dataDir),
                    coin() ? null : chap(),
                    networks,
                    null,
                    null,
                    List.of()));
        }
        return out;
    }

    private List<LunDefinition> luns(int target, Path dataDir) {
        Set<Integer> ids = new LinkedHashSet<>();
        for (int i = between(1, 4); i > 0; i--) {
            ids.add(coin() ? i - 1 : between(0, 16_383));
        }
        List<LunDefinition> out = new ArrayList<>();
        for (int id : ids) {
            BackingType backing = pick(BackingType.values());
            String file = target + "-" + id + ".img";
            Path path = switch (between(0, 3)) {
                case 0 -> dataDir.resolve(file);
                case 1 -> dataDir.resolve("sub dir: #" + target).resolve(file);
                case 2 -> Path.of("/elsewhere/" + pick(TEXT).strip().replace('/', '_') + file);
                default -> dataDir.resolveSibling("beside").resolve(file);
            };
            int blockSize = coin() ? 512 : 4096;
            long size = Math.max(blockSize, size(blockSize, 1L << 40) / blockSize * blockSize);
            if (backing == BackingType.BLOCK) {
                path = Path.of("/dev/disk/by-id/" + target + "-" + id);
                blockSize = coin() ? LunDefinition.FROM_DEVICE : blockSize;
                size = coin() ? LunDefinition.FROM_DEVICE : size;
            }
            RbdSource rbd = null;
            if (backing == BackingType.RBD) {
                size = LunDefinition.FROM_DEVICE;
                rbd = new RbdSource(
                        coin() ? RbdSource.DEFAULT_POOL : "pool-" + id,
                        "image " + pick(TEXT).strip() + id,
                        coin()
                                ? RbdSource.DEFAULT_CEPH_CONF
                                : path.resolveSibling("ceph.conf").normalize(),
                        coin() ? RbdSource.DEFAULT_USER : "gw" + id,
                        coin() ? null : path.resolveSibling("k").normalize(),
                        coin() ? RbdSource.DEFAULT_TIMEOUT : Duration.ofSeconds(between(1, 300)),
                        coin());
            }
            boolean pathless = backing == BackingType.RAM || backing == BackingType.NULL || backing == BackingType.RBD;
            out.add(new LunDefinition(
                    id,
                    backing,
                    pathless ? null : path.normalize(),
                    size,
                    blockSize,
                    coin() ? null : serial(),
                    faults(),
                    coin() ? LunDefinition.FROM_DEVICE : Math.max(blockSize, 512) << between(0, 3),
                    coin(),
                    backing == BackingType.RAM || backing == BackingType.NULL || backing == BackingType.FILE
                            ? softThreshold(backing)
                            : LunDefinition.NO_THRESHOLD,
                    rbd));
        }
        return out;
    }

    private int softThreshold(BackingType backing) {
        return backing == BackingType.NULL || coin() ? LunDefinition.NO_THRESHOLD : between(1, 99);
    }

    private String serial() {
        StringBuilder sb = new StringBuilder();
        for (int i = between(1, 64); i > 0; i--) {
            sb.append((char) between(0x20, 0x7e));
        }
        return sb.toString();
    }

    private FaultInjection faults() {
        if (coin()) {
            return FaultInjection.NONE;
        }
        long noSpace = switch (between(0, 2)) {
            case 0 -> Long.MAX_VALUE;
            case 1 -> 0;
            default -> size(1, 1L << 40);
        };
        return new FaultInjection(
                coin() ? Duration.ZERO : duration(1, 60_000), coin() ? 0 : between(1, Integer.MAX_VALUE), noSpace);
    }

    /** Credentials with secrets used nowhere else in the configuration (RFC 7143 12.1.3 direction rule). */
    private ChapCredentials chap() {
        String user = coin() ? "user" + between(0, 9) : pick(TEXT);
        if (coin()) {
            return new ChapCredentials(user, secret(), null, null);
        }
        return new ChapCredentials(user, secret(), pick(TEXT), secret());
    }

    private byte[] secret() {
        while (true) {
            StringBuilder sb = new StringBuilder();
            for (int i = between(12, 40); i > 0; i--) {
                sb.append(SECRET_CHARS.charAt(random.nextInt(SECRET_CHARS.length())));
            }
            byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
            if (bytes.length <= ChapCredentials.MAX_SECRET_BYTES && secrets.add(sb.toString())) {
                return bytes;
            }
        }
    }

    /** Bytes in {@code min..max}, half the time a whole number of K, M, G or T. */
    private long size(long min, long max) {
        if (coin()) {
            int shift = 10 * between(1, 4);
            long low = (min + (1L << shift) - 1) >> shift;
            long high = max >> shift;
            if (low <= high) {
                return (low + random.nextLong(high - low + 1)) << shift;
            }
        }
        return min + random.nextLong(max - min + 1);
    }

    /** Milliseconds in {@code minMs..maxMs}, half the time a whole number of seconds, minutes or hours. */
    private Duration duration(long minMs, long maxMs) {
        if (coin()) {
            long unit = pick(List.of(1000L, 60_000L, 3_600_000L));
            long low = (minMs + unit - 1) / unit;
            long high = maxMs / unit;
            if (low <= high) {
                return Duration.ofMillis((low + random.nextLong(high - low + 1)) * unit);
            }
        }
        return Duration.ofMillis(minMs + random.nextLong(maxMs - minMs + 1));
    }

    private boolean coin() {
        return random.nextBoolean();
    }

    private int between(int min, int max) {
        return (int) (min + random.nextLong((long) max - min + 1));
    }

    private <T> T pick(List<T> items) {
        return items.get(random.nextInt(items.size()));
    }

    private <T> T pick(T[] items) {
        return items[random.nextInt(items.length)];
    }
}
