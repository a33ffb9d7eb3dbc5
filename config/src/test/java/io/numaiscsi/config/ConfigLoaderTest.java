package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    private static final String FULL = """
            # a full example: every key set away from its default
            daemon:
              data-dir: /srv/numa-iscsi
              io-threads: 16
            portals:
              - 0.0.0.0:3260
              - "[::1]:3261"
              - storage1.example.com:3262
            iscsi:
              max-recv-data-segment-length: 65536
              max-burst-length: 262144
              first-burst-length: 65536
              max-outstanding-r2t: 8
              immediate-data: false
              initial-r2t: true
              queue-depth: 256
              header-digest: [CRC32C]
              data-digest: [crc32c, none]
              default-time2wait: 0
              default-time2retain: 20
              nop-in-interval: 500ms
              nop-in-timeout: 2m
            targets:
              - name: iqn.2026-11.io.numaiscsi:db
                alias: database volumes
                allow:
                  - iqn.1994-05.com.redhat:client1
                  - eui.02004567A425678D
                luns:
                  - id: 0
                    backing: file
                    path: db/data.img
                    size: 10G
                    block-size: 4096
                    serial: DB-0001
                  - id: 7
                    backing: ram
                    size: 268435456
              - name: naa.52004567BA64678D
                luns:
                  - id: 0
                    path: /mnt/fast/scratch.img
                    size: 2T
            """;

    @Test
    void embeddedDefaultHasTheDocumentedValues() {
        TargetConfig c = ConfigLoader.embeddedDefault();
        assertEquals(new DaemonSettings(DefaultDataDir.forThisProcess(), 4), c.daemon());
        assertEquals(List.of(new Portal("127.0.0.1", 3260)), c.portals());
        IscsiSettings i = c.iscsi();
        assertEquals(262_144, i.maxRecvDataSegmentLength());
        assertEquals(1_048_576, i.maxBurstLength());
        assertEquals(262_144, i.firstBurstLength());
        assertEquals(4, i.maxOutstandingR2T());
        assertTrue(i.immediateData());
        assertFalse(i.initialR2T());
        assertEquals(128, i.queueDepth());
        assertEquals(List.of("None", "CRC32C"), i.headerDigests());
        assertEquals(List.of("None", "CRC32C"), i.dataDigests());
        assertEquals(2, i.defaultTime2Wait());
        assertEquals(0, i.defaultTime2Retain());
        assertEquals(Duration.ofSeconds(5), i.nopInInterval());
        assertEquals(Duration.ofSeconds(30), i.nopInTimeout());
        assertEquals(1, c.targets().size());
        TargetDefinition t = c.targets().get(0);
        assertEquals("iqn.2026-11.io.numaiscsi:disk0", t.name());
        assertEquals("disk0", t.alias());
        assertEquals(List.of(), t.allowedInitiators());
        assertEquals(
                List.of(new LunDefinition(
                        0, BackingType.FILE, DefaultDataDir.forThisProcess().resolve("lun0.img"), 1L << 30, 512, null)),
                t.luns());
    }

    @Test
    void embeddedDefaultTextIsTheResourceParsedBySameCode() throws ConfigException {
        String text = ConfigLoader.embeddedDefaultText();
        assertTrue(text.contains("iqn.2026-11.io.numaiscsi:disk0"));
        assertEquals(ConfigLoader.embeddedDefault(), ConfigLoader.parse(text, "x.yaml"));
    }

    @Test
    void sectionsLeftOutTakeTheirDefaults() throws ConfigException {
        TargetConfig minimal = ConfigLoader.parse("""
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    alias: disk0
                    luns:
                      - id: 0
                        path: lun0.img
                        size: 1G
                """, "min.yaml");
        assertEquals(ConfigLoader.embeddedDefault(), minimal);
    }

    @Test
    void emptySectionsAndEmptyOptionalValuesMeanDefaults() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                daemon:
                iscsi:
                  queue-depth:
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    alias:
                    luns: [{id: 0, backing: ram, size: 1M, serial: ""}]
                """, "e.yaml");
        assertEquals(4, c.daemon().ioThreads());
        assertEquals(128, c.iscsi().queueDepth());
        assertNull(c.targets().get(0).alias());
        assertNull(c.targets().get(0).luns().get(0).serial());
    }

    @Test
    void fullExampleFileLoadsEveryKey(@TempDir Path dir) throws IOException, ConfigException {
        Path file = dir.resolve("target.yaml");
        Files.writeString(file, FULL, StandardCharsets.UTF_8);
        TargetConfig c = ConfigLoader.load(file);

        assertEquals(new DaemonSettings(Path.of("/srv/numa-iscsi"), 16), c.daemon());
        assertEquals(
                List.of(new Portal("0.0.0.0", 3260), new Portal("::1", 3261), new Portal("storage1.example.com", 3262)),
                c.portals());
        assertEquals(
                new IscsiSettings(
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
                        Duration.ofMinutes(2)),
                c.iscsi());

        TargetDefinition db = c.targets().get(0);
        assertEquals("database volumes", db.alias());
        assertEquals(List.of("iqn.1994-05.com.redhat:client1", "eui.02004567A425678D"), db.allowedInitiators());
        assertEquals(
                new LunDefinition(
                        0, BackingType.FILE, Path.of("/srv/numa-iscsi/db/data.img"), 10L << 30, 4096, "DB-0001"),
                db.lun(0));
        assertEquals(new LunDefinition(7, BackingType.RAM, null, 268_435_456L, 512, null), db.lun(7));

        TargetDefinition scratch = c.target("NAA.52004567ba64678d");
        assertEquals("naa.52004567BA64678D", scratch.name());
        assertEquals(Path.of("/mnt/fast/scratch.img"), scratch.lun(0).path());
        assertEquals(2L << 40, scratch.lun(0).sizeBytes());
        assertEquals((2L << 40) / 512, scratch.lun(0).blockCount());
    }

    @Test
    void relativeLunPathsResolveAgainstDataDir() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                daemon: {data-dir: /data/iscsi/}
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    luns:
                      - {id: 0, path: a.img, size: 1M}
                      - {id: 1, path: sub/../b.img, size: 1M}
                      - {id: 2, path: /abs/c.img, size: 1M}
                """, "r.yaml");
        List<LunDefinition> luns = c.targets().get(0).luns();
        assertEquals(Path.of("/data/iscsi"), c.daemon().dataDir());
        assertEquals(Path.of("/data/iscsi/a.img"), luns.get(0).path());
        assertEquals(Path.of("/data/iscsi/b.img"), luns.get(1).path());
        assertEquals(Path.of("/abs/c.img"), luns.get(2).path());
    }

    @Test
    void softThresholdIsAPercentageAndOffByDefault() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                daemon: {data-dir: /data/iscsi}
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    luns:
                      - {id: 0, path: a.img, size: 1M}
                      - {id: 1, path: b.img, size: 1M, soft-threshold: 80%}
                      - {id: 2, backing: ram, size: 1M, soft-threshold: 5}
                """, "t.yaml");
        List<LunDefinition> luns = c.targets().get(0).luns();
        assertEquals(LunDefinition.NO_THRESHOLD, luns.get(0).softThreshold());
        assertEquals(80, luns.get(1).softThreshold());
        assertEquals(5, luns.get(2).softThreshold(), "the % may be left out");
    }

    @Test
    void blockDeviceLunsLeaveSizeAndBlockSizeToTheDeviceUnlessGiven() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                daemon: {data-dir: /data/iscsi}
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    luns:
                      - {id: 0, backing: block, path: /dev/sdb}
                      - {id: 1, backing: block, path: /dev/vg/../vg/lv, size: 10G, block-size: 4096}
                      - {id: 2, backing: block, path: /dev/zvol/pool/vol, size: 1M}
                """, "b.yaml");
        List<LunDefinition> luns = c.targets().get(0).luns();
        assertEquals(
                new LunDefinition(
                        0,
                        BackingType.BLOCK,
                        Path.of("/dev/sdb"),
                        LunDefinition.FROM_DEVICE,
                        LunDefinition.FROM_DEVICE,
                        null),
                luns.get(0));
        assertEquals(
                new LunDefinition(1, BackingType.BLOCK, Path.of("/dev/vg/lv"), 10L << 30, 4096, null), luns.get(1));
        assertEquals(
                new LunDefinition(
                        2, BackingType.BLOCK, Path.of("/dev/zvol/pool/vol"), 1L << 20, LunDefinition.FROM_DEVICE, null),
                luns.get(2));
    }

    @Test
    void rbdLunsNameTheirImageAndTakeTheirSizeFromIt() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                daemon: {data-dir: /data/iscsi}
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    luns:
                      - {id: 0, backing: rbd, image: vol0}
                      - {id: 1, backing: rbd, pool: iscsi, image: vol1, ceph-conf: ceph/ceph.conf, rbd-user: gw,
                         keyring: /etc/ceph/gw.keyring, rbd-timeout: 10s, numa-cache: true, block-size: 4096}
                """, "rbd.yaml");
        List<LunDefinition> luns = c.targets().get(0).luns();
        assertEquals(
                new RbdSource(
                        "rbd", "vol0", Path.of("/etc/ceph/ceph.conf"), "admin", null, Duration.ofSeconds(20), false),
                luns.get(0).rbd());
        assertEquals(LunDefinition.FROM_DEVICE, luns.get(0).sizeBytes());
        assertEquals(512, luns.get(0).blockSize());
        assertEquals(
                new RbdSource(
                        "iscsi",
                        "vol1",
                        Path.of("/data/iscsi/ceph/ceph.conf"),
                        "gw",
                        Path.of("/etc/ceph/gw.keyring"),
                        Duration.ofSeconds(10),
                        true),
                luns.get(1).rbd());
        assertEquals(4096, luns.get(1).blockSize());
    }

    @Test
    void rbdKeysAreCheckedWhereTheyAreWritten() {
        String[][] cases = {
            {
                "{id: 0, backing: rbd}",
                "x.yaml:4: targets[0].luns[0].image: is required for backing: rbd (the RBD "
                        + "image's name in its pool)"
            },
            {
                "{id: 0, backing: rbd, image: v, size: 1G}",
                "x.yaml:4: targets[0].luns[0].size: is not used with "
                        + "backing: rbd: the LUN has the image's size (grow it with rbd resize)"
            },
            {
                "{id: 0, backing: file, path: a.img, size: 1M, image: v}",
                "x.yaml:4: targets[0].luns[0].image: is only " + "used with backing: rbd"
            },
            {"{id: 0, backing: rbd, image: v, rbd-timeout: 0s}", "x.yaml:4: targets[0].luns[0].rbd-timeout: "},
            {
                "{id: 0, backing: rbd, image: v, path: /x}",
                "x.yaml:4: targets[0].luns[0].path: is only used with " + "backing: file or block"
            },
        };
        for (String[] t : cases) {
            ConfigException e = assertThrows(
                    ConfigException.class,
                    () -> ConfigLoader.parse(
                            "targets:\n  - name: iqn.2026-11.io.numaiscsi:disk0\n    luns:\n      - " + t[0] + "\n",
                            "x.yaml"),
                    t[0]);
            assertTrue(e.getMessage().startsWith(t[1]), e.getMessage());
        }
    }

    @Test
    void oneDeviceServesOneLun() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    luns:
                      - {id: 0, backing: block, path: /dev/sdb}
                  - name: iqn.2026-11.io.numaiscsi:disk1
                    luns:
                      - {id: 0, backing: block, path: /dev/sdb}
                """, "d.yaml"));
        assertEquals(
                "d.yaml:7: targets[1].luns[0].path: /dev/sdb is already the backing device of "
                        + "targets[0].luns[0].path",
                e.getMessage());
    }

    @Test
    void loadNamesTheFileInErrors(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "targets:\n  - name: iqn.2026-11.io.x:y\n    lunz: []\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
        assertEquals(file + ":3: targets[0].lunz: unknown key (did you mean \"luns\"?)", e.getMessage());
        assertEquals(file.toString(), e.source());
    }

    @Test
    void missingFileIsAConfigException(@TempDir Path dir) {
        Path file = dir.resolve("absent.yaml");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
        assertEquals(file + ": no such file", e.getMessage());
        assertEquals(0, e.line());
    }
}
