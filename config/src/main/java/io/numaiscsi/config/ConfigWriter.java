package io.numaiscsi.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link TargetConfig} as the YAML text {@link ConfigLoader} reads back into an equal configuration: the file's
 * keys, sizes and durations as an administrator writes them ({@code 1G}, {@code 5s}) where that is exact, LUN paths
 * under the data directory relative to it. Keys at their default are left out, and a section with nothing else to
 * say; {@code daemon.data-dir}, the portals and each LUN's {@code backing} are always written. CHAP secrets are
 * written as they are: the file must start the same daemon again.
 */
public final class ConfigWriter {

    private static final List<String> HEADER = List.of(
            "numa-iscsi-target configuration, written from a running configuration.",
            "Keys left out take their defaults; config/README.md describes every key.");

    /** Each section as a file that leaves it out reads it: the defaults, from the readers themselves. */
    private record Defaults(
            DaemonSettings daemon, IscsiSettings iscsi, LimitsSettings limits, CacheSettings cache, NumaSettings numa) {
        static Defaults read() {
            try {
                Fields none = Cursor.root("defaults", new Node.Mapping(List.of(), 1, 1))
                        .fields(List.of());
                return new Defaults(
                        DaemonSection.read(none),
                        IscsiSection.read(none),
                        LimitsSection.read(none),
                        CacheSection.read(none),
                        NumaSection.read(none));
            } catch (ConfigException e) {
                throw new IllegalStateException("a section's defaults do not validate", e);
            }
        }
    }

    private static final Defaults DEFAULTS = Defaults.read();

    private ConfigWriter() {}

    /**
     * The YAML text of {@code config}. A configuration the loader would refuse (a target without LUNs) is written
     * as it is, and refused when read back.
     */
    public static String write(TargetConfig config) {
        YamlText y = new YamlText();
        HEADER.forEach(y::comment);
        daemon(config.daemon(), y);
        portals(config.portals(), y);
        iscsi(config.iscsi(), y);
        limits(config.limits(), y);
        cache(config.cache(), y);
        numa(config.numa(), y);
        chap(InitiatorsSection.DISCOVERY_KEY, config.discoveryChap(), y);
        initiators(config.initiators(), y);
        if (config.group() != null) {
            GroupSection.write(config.group(), y); // the targets are the group's
        } else {
            targets(config.targets(), config.daemon().dataDir(), SecretCodec.PLAIN, y);
        }
        return y.toString();
    }

    /** {@code targets} as the {@code targets:} section alone, secrets written with {@code codec}. */
    public static String writeTargets(List<TargetDefinition> targets, Path dataDir, SecretCodec codec) {
        YamlText y = new YamlText();
        targets(targets, dataDir, codec, y);
        return y.toString();
    }

    private static void daemon(DaemonSettings s, YamlText y) {
        DaemonSettings d = DEFAULTS.daemon();
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("data-dir", YamlText.scalar(s.dataDir().toString()));
        put(keys, "io-threads", s.ioThreads(), d.ioThreads(), String::valueOf);
        put(keys, "event-model", s.eventModel(), d.eventModel(), ConfigWriter::name);
        put(keys, "secret-file-check", s.secretFileCheck(), d.secretFileCheck(), ConfigWriter::name);
        put(keys, "backing-io", s.backingIo(), d.backingIo(), DaemonSettings.BackingIo::configName);
        put(keys, "log-level", s.logLevel(), d.logLevel(), String::valueOf);
        put(keys, "tcp-transport", s.tcpTransport(), d.tcpTransport(), DaemonSettings.TcpTransport::configName);
        put(keys, "event-spin", s.eventSpin(), d.eventSpin(), Durations::format);
        put(keys, "io-poll", s.ioPoll(), d.ioPoll(), Durations::format);
        y.section(DaemonSection.KEY, keys);
    }

    private static void portals(List<Portal> portals, YamlText y) {
        if (portals.isEmpty()) {
            y.entry(PortalsSection.KEY, "[]");
            return;
        }
        y.open(PortalsSection.KEY);
        for (Portal p : portals) {
            if (p.transport() == Portal.Transport.TCP) {
                y.listValue(YamlText.scalar(p.toString()));
                continue;
            }
            y.item().entry("address", YamlText.scalar(p.toString())).entry("transport", name(p.transport()));
            if (p.connections() != Portal.DEFAULT_ISER_CONNECTIONS) {
                y.entry("connections", String.valueOf(p.connections()));
            }
            y.close();
        }
        y.close();
    }

    private static void iscsi(IscsiSettings s, YamlText y) {
        IscsiSettings d = DEFAULTS.iscsi();
        Map<String, String> keys = new LinkedHashMap<>();
        put(
                keys,
                "max-recv-data-segment-length",
                s.maxRecvDataSegmentLength(),
                d.maxRecvDataSegmentLength(),
                String::valueOf);
        put(keys, "max-burst-length", s.maxBurstLength(), d.maxBurstLength(), String::valueOf);
        put(keys, "first-burst-length", s.firstBurstLength(), d.firstBurstLength(), String::valueOf);
        put(keys, "max-outstanding-r2t", s.maxOutstandingR2T(), d.maxOutstandingR2T(), String::valueOf);
        put(keys, "immediate-data", s.immediateData(), d.immediateData(), String::valueOf);
        put(keys, "initial-r2t", s.initialR2T(), d.initialR2T(), String::valueOf);
        put(keys, "queue-depth", s.queueDepth(), d.queueDepth(), String::valueOf);
        put(keys, "header-digest", s.headerDigests(), d.headerDigests(), YamlText::flowList);
        put(keys, "data-digest", s.dataDigests(), d.dataDigests(), YamlText::flowList);
        put(keys, "default-time2wait", s.defaultTime2Wait(), d.defaultTime2Wait(), String::valueOf);
        put(keys, "default-time2retain", s.defaultTime2Retain(), d.defaultTime2Retain(), String::valueOf);
        put(keys, "nop-in-interval", s.nopInInterval(), d.nopInInterval(), ConfigWriter::duration);
        put(keys, "nop-in-timeout", s.nopInTimeout(), d.nopInTimeout(), ConfigWriter::duration);
        y.section(IscsiSection.KEY, keys);
    }

    private static void limits(LimitsSettings s, YamlText y) {
        LimitsSettings d = DEFAULTS.limits();
        Map<String, String> keys = new LinkedHashMap<>();
        put(keys, "max-sessions", s.maxSessions(), d.maxSessions(), String::valueOf);
        put(
                keys,
                "max-sessions-per-initiator",
                s.maxSessionsPerInitiator(),
                d.maxSessionsPerInitiator(),
                String::valueOf);
        put(keys, "write-buffer-per-session", s.writeBufferPerSession(), d.writeBufferPerSession(), Sizes::format);
        put(keys, "max-logins", s.maxLogins(), d.maxLogins(), String::valueOf);
        put(keys, "logins-per-address", s.loginsPerAddress(), d.loginsPerAddress(), String::valueOf);
        put(keys, "login-timeout", s.loginTimeout(), d.loginTimeout(), ConfigWriter::duration);
        put(keys, "login-pdu-timeout", s.loginPduTimeout(), d.loginPduTimeout(), ConfigWriter::duration);
        put(keys, "data-out-timeout", s.dataOutTimeout(), d.dataOutTimeout(), ConfigWriter::duration);
        put(keys, "data-in-per-connection", s.dataInPerConnection(), d.dataInPerConnection(), Sizes::format);
        put(keys, "buffer-memory", s.bufferMemory(), d.bufferMemory(), Sizes::format);
        y.section(LimitsSection.KEY, keys);
    }

    private static void cache(CacheSettings s, YamlText y) {
        CacheSettings d = DEFAULTS.cache();
        Map<String, String> keys = new LinkedHashMap<>();
        put(keys, "mode", s.mode(), d.mode(), ConfigWriter::name);
        put(
                keys,
                "size-per-node",
                s.sizePerNode(),
                d.sizePerNode(),
                size -> size == CacheSettings.SIZE_AUTO ? "auto" : Sizes.format(size));
        put(keys, "block-size", (long) s.blockSize(), (long) d.blockSize(), Sizes::format);
        put(keys, "partitions-per-node", s.partitionsPerNode(), d.partitionsPerNode(), String::valueOf);
        put(keys, "neighbours", s.neighbours(), d.neighbours(), String::valueOf);
        put(keys, "route-threshold", (long) s.routeThreshold(), (long) d.routeThreshold(), Sizes::format);
        put(keys, "write-policy", s.writePolicy(), d.writePolicy(), ConfigWriter::name);
        put(
                keys,
                "zero-copy-min",
                s.zeroCopyMin(),
                d.zeroCopyMin(),
                min -> min == CacheSettings.ZERO_COPY_OFF ? "off" : Sizes.format(min));
        put(keys, "dirty-ratio", s.dirtyRatio(), d.dirtyRatio(), ConfigWriter::ratio);
        put(keys, "dirty-expire", s.dirtyExpire(), d.dirtyExpire(), ConfigWriter::duration);
        put(keys, "backing-page-cache", s.backingPageCache(), d.backingPageCache(), String::valueOf);
        y.section(CacheSection.KEY, keys);
    }

    private static void numa(NumaSettings s, YamlText y) {
        NumaSettings d = DEFAULTS.numa();
        Map<String, String> keys = new LinkedHashMap<>();
        put(keys, "pretend-nodes", s.pretendNodes(), d.pretendNodes(), String::valueOf);
        put(keys, "placement", s.placement(), d.placement(), ConfigWriter::name);
        y.section(NumaSection.KEY, keys);
    }

    private static void initiators(List<InitiatorDefinition> initiators, YamlText y) {
        if (initiators.isEmpty()) {
            return;
        }
        y.open(InitiatorsSection.KEY);
        for (InitiatorDefinition i : initiators) {
            y.item().entry("name", YamlText.scalar(i.name()));
            chap("chap", i.chap(), y);
            y.close();
        }
        y.close();
    }

    private static void chap(String key, ChapCredentials chap, YamlText y) {
        chap(key, chap, SecretCodec.PLAIN, y);
    }

    private static void chap(String key, ChapCredentials chap, SecretCodec codec, YamlText y) {
        if (chap == null) {
            return;
        }
        y.open(key)
                .entry("username", YamlText.scalar(chap.username()))
                .entry("secret", YamlText.scalar(codec.encode(chap.secret())));
        if (chap.mutual()) {
            y.entry("mutual-username", YamlText.scalar(chap.mutualUsername()))
                    .entry("mutual-secret", YamlText.scalar(codec.encode(chap.mutualSecret())));
        }
        y.close();
    }

    private static void targets(List<TargetDefinition> targets, Path dataDir, SecretCodec codec, YamlText y) {
        if (targets.isEmpty()) {
            y.entry(TargetsSection.KEY, "[]");
            return;
        }
        y.open(TargetsSection.KEY);
        for (TargetDefinition t : targets) {
            y.item().entry("name", YamlText.scalar(t.name()));
            if (t.alias() != null && !t.alias().isEmpty()) {
                y.entry("alias", YamlText.scalar(t.alias()));
            }
            list("allow", t.allowedInitiators(), y);
            list(
                    "allow-networks",
                    t.allowNetworks().stream().map(NetworkRange::toString).toList(),
                    y);
            chap("chap", t.chap(), codec, y);
            AluaSection.write(t.alua(), y);
            SharedReservationsSection.write(t.sharedReservations(), y);
            LunMapsSection.write(t.lunMaps(), y);
            if (t.luns().isEmpty()) {
                y.entry(LunSection.KEY, "[]");
            } else {
                y.open(LunSection.KEY);
                t.luns().forEach(lun -> lun(lun, dataDir, y));
                y.close();
            }
            y.close();
        }
        y.close();
    }

    private static void rbd(RbdSource r, Path dataDir, YamlText y) {
        y.entry("pool", YamlText.scalar(r.pool())).entry("image", YamlText.scalar(r.image()));
        if (!r.cephConf().equals(RbdSource.DEFAULT_CEPH_CONF)) {
            y.entry("ceph-conf", YamlText.scalar(path(r.cephConf(), dataDir)));
        }
        if (!r.user().equals(RbdSource.DEFAULT_USER)) {
            y.entry("rbd-user", YamlText.scalar(r.user()));
        }
        if (r.keyring() != null) {
            y.entry("keyring", YamlText.scalar(path(r.keyring(), dataDir)));
        }
        if (!r.timeout().equals(RbdSource.DEFAULT_TIMEOUT)) {
            y.entry("rbd-timeout", duration(r.timeout()));
        }
        if (r.numaCache()) {
            y.entry("numa-cache", "true");
        }
        if (r.owner() != null) {
            y.entry("owner", r.owner());
        }
    }

    private static void lun(LunDefinition lun, Path dataDir, YamlText y) {
        y.item().entry("id", String.valueOf(lun.id())).entry("backing", name(lun.backing()));
        if (lun.path() != null) {
            String written = lun.backing() == BackingType.BLOCK ? lun.path().toString() : path(lun.path(), dataDir);
            y.entry("path", YamlText.scalar(written));
        }
        if (lun.sizeBytes() != LunDefinition.FROM_DEVICE) {
            y.entry("size", Sizes.format(lun.sizeBytes()));
        }
        // a block device LUN without block-size takes the device's, not the default
        int omitted = lun.backing() == BackingType.BLOCK ? LunDefinition.FROM_DEVICE : LunSection.DEFAULT_BLOCK_SIZE;
        if (lun.blockSize() != omitted) {
            y.entry("block-size", String.valueOf(lun.blockSize()));
        }
        if (lun.physicalBlockSize() != LunDefinition.FROM_DEVICE) {
            y.entry("physical-block-size", String.valueOf(lun.physicalBlockSize()));
        }
        if (lun.readOnly()) {
            y.entry("read-only", "true");
        }
        if (lun.softThreshold() != LunDefinition.NO_THRESHOLD) {
            y.entry("soft-threshold", YamlText.scalar(lun.softThreshold() + "%"));
        }
        if (lun.rbd() != null) {
            rbd(lun.rbd(), dataDir, y);
        }
        if (lun.serial() != null && !lun.serial().isEmpty()) {
            y.entry("serial", YamlText.scalar(lun.serial()));
        }
        FaultInjection f = lun.faults();
        if (!f.latency().isZero()) {
            y.entry("inject-latency", duration(f.latency()));
        }
        if (f.mediumErrorEvery() != 0) {
            y.entry("inject-medium-error-every", String.valueOf(f.mediumErrorEvery()));
        }
        if (f.noSpaceAfterBytes() != Long.MAX_VALUE) {
            y.entry("inject-no-space-after", f.noSpaceAfterBytes() == 0 ? "0" : Sizes.format(f.noSpaceAfterBytes()));
        }
        y.close();
    }

    /** A list of single values under {@code key}; nothing when empty (the loader's default for both lists). */
    private static void list(String key, List<String> items, YamlText y) {
        if (items.isEmpty()) {
            return;
        }
        y.open(key);
        items.forEach(i -> y.listValue(YamlText.scalar(i)));
        y.close();
    }

    /** The entry, when its value is not the default; {@code yaml} writes the value (numbers, names: plain text). */
    private static <T> void put(Map<String, String> keys, String key, T value, T dflt, Function<T, String> yaml) {
        if (!Objects.equals(value, dflt)) {
            keys.put(key, yaml.apply(value));
        }
    }

    /** A path under the data directory relative to it, as the embedded default writes {@code lun0.img}. */
    static String path(Path path, Path dataDir) {
        return path.startsWith(dataDir) && !path.equals(dataDir)
                ? dataDir.relativize(path).toString()
                : path.toString();
    }

    /** An enum constant as the file spells it: {@code PAGE_CACHE} is {@code page-cache}. */
    private static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static String duration(Duration d) {
        return d.isZero() ? "0" : Durations.format(d);
    }

    /**
     * A fraction the loader reads back exactly ({@code 0.2}), else a percentage that it does ({@code 33.333333%}); a
     * ratio with neither (never one the loader made) is written as a fraction that does not read back equal.
     */
    static String ratio(double r) {
        String fraction = BigDecimal.valueOf(r).stripTrailingZeros().toPlainString();
        if (CacheSection.RATIO_NUMBER.matcher(fraction).matches() && Double.parseDouble(fraction) == r) {
            return fraction;
        }
        String percent = BigDecimal.valueOf(r)
                .movePointRight(2)
                .setScale(6, RoundingMode.HALF_EVEN)
                .stripTrailingZeros()
                .toPlainString();
        return Double.parseDouble(percent) / 100 == r ? percent + "%" : fraction;
    }
}
