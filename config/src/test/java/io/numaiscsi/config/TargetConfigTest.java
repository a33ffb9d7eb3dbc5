package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetConfigTest {

    private static TargetConfig config() throws ConfigException {
        return ConfigLoader.parse("""
                daemon: {data-dir: /old/dir}
                targets:
                  - name: iqn.2026-11.io.numaiscsi:disk0
                    luns:
                      - {id: 0, path: lun0.img, size: 1M}
                      - {id: 1, path: /elsewhere/lun1.img, size: 1M}
                      - {id: 2, backing: ram, size: 1M}
                """, "t.yaml");
    }

    @Test
    void withDataDirMovesPathsThatLayUnderTheOldDataDir() throws ConfigException {
        TargetConfig moved = config().withDataDir(Path.of("/new/dir/"));
        assertEquals(new DaemonSettings(Path.of("/new/dir"), 4), moved.daemon());
        List<LunDefinition> luns = moved.targets().get(0).luns();
        assertEquals(Path.of("/new/dir/lun0.img"), luns.get(0).path());
        assertEquals(Path.of("/elsewhere/lun1.img"), luns.get(1).path());
        assertEquals(null, luns.get(2).path());
        assertEquals(config().iscsi(), moved.iscsi());
        assertEquals(config().portals(), moved.portals());
    }

    @Test
    void withDataDirMakesRelativeDirectoriesAbsolute() throws ConfigException {
        TargetConfig moved = config().withDataDir(Path.of("rel"));
        assertEquals(Path.of("rel").toAbsolutePath().normalize(), moved.daemon().dataDir());
        assertEquals(
                moved.daemon().dataDir().resolve("lun0.img"),
                moved.targets().get(0).luns().get(0).path());
    }

    @Test
    void withDataDirKeepsTheOtherDaemonSettings() throws ConfigException {
        TargetConfig c = ConfigLoader.parse(
                "daemon: {data-dir: /old, secret-file-check: refuse, event-model: centralized}\n"
                        + "targets: [{name: iqn.2026-11.io.numaiscsi:d, luns: [{id: 0, backing: ram, size: 1M}]}]\n",
                "t.yaml");
        assertEquals(
                new DaemonSettings(
                        Path.of("/new"),
                        4,
                        DaemonSettings.EventModel.CENTRALIZED,
                        DaemonSettings.SecretFileCheck.REFUSE),
                c.withDataDir(Path.of("/new")).daemon());
    }

    @Test
    void holdsSecretsWithAnyChapSection() throws ConfigException {
        String target = "targets: [{name: iqn.2026-11.io.numaiscsi:d, luns: [{id: 0, backing: ram, size: 1M}]}]\n";
        String chap = "{username: u, secret: secret-of-16-b}";
        assertFalse(ConfigLoader.parse(target, "t.yaml").holdsSecrets());
        assertTrue(ConfigLoader.parse("discovery-chap: " + chap + "\n" + target, "t.yaml")
                .holdsSecrets());
        assertTrue(ConfigLoader.parse(
                        "initiators: [{name: iqn.2026-11.io.numaiscsi:i, chap: " + chap + "}]\n" + target, "t.yaml")
                .holdsSecrets());
        assertTrue(ConfigLoader.parse(
                        "targets: [{name: iqn.2026-11.io.numaiscsi:d, chap: " + chap
                                + ", luns: [{id: 0, backing: ram, size: 1M}]}]\n",
                        "t.yaml")
                .holdsSecrets());
    }

    @Test
    void withPortalsReplacesTheListenAddresses() throws ConfigException {
        TargetConfig c = config();
        List<Portal> portals = List.of(Portal.parse("[::]:3260"), Portal.parse("10.0.0.1:3261"));
        TargetConfig changed = c.withPortals(portals);
        assertEquals(portals, changed.portals());
        assertSame(c.targets(), changed.targets());
        assertEquals(c.daemon(), changed.daemon());
    }

    @Test
    void withPortalsRejectsEmptyAndDuplicateLists() throws ConfigException {
        TargetConfig c = config();
        assertThrows(IllegalArgumentException.class, () -> c.withPortals(List.of()));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> c.withPortals(List.of(Portal.parse("a:1"), Portal.parse("A:1"))));
        assertEquals("duplicate portal A:1", e.getMessage());
    }

    @Test
    void targetLookupIgnoresCase() throws ConfigException {
        assertEquals(
                "iqn.2026-11.io.numaiscsi:disk0",
                config().target("IQN.2026-11.IO.NUMAISCSI:DISK0").name());
        assertEquals(null, config().target("iqn.2026-11.io.numaiscsi:other"));
    }
}
