package io.numaiscsi.daemon.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.Portal;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.daemon.ConfigFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code config.save} writes, and the paths it refuses before writing anything. */
class ConfigSaveTest {
    private static final String FILE = """
            daemon: {data-dir: /srv/iscsi, event-model: per-lun}
            portals: [127.0.0.1:3260]
            targets:
              - name: iqn.2026-11.io.numaiscsi:d
                luns: [{id: 0, path: lun0.img, size: 1M}, {id: 1, path: /elsewhere/lun1.img, size: 1M}]
            """;

    @Test
    void theRunningTargetsGoOverTheFilesSettingsWithoutTheCommandLineOverrides() throws Exception {
        TargetConfig file = ConfigLoader.parse(FILE, "t.yaml");
        TargetConfig started =
                file.withDataDir(Path.of("/override")).withPortals(List.of(Portal.parse("127.0.0.1:13260")));
        TargetConfig running = started;
        var t = running.targets().get(0);
        var added = ConfigLoader.parseLun("{id: 2, path: lun2.img, size: 2M}", "lun.add", running, t);
        running = running.withTargets(
                List.of(t.withLuns(List.of(t.luns().get(0), t.luns().get(1), added))));

        TargetConfig saved = ConfigSave.toSave(running, started, file);

        assertEquals(file.daemon(), saved.daemon(), "the file's data directory and event model");
        assertEquals(file.portals(), saved.portals(), "the file's portals, not --portal's");
        List<Path> paths =
                saved.targets().get(0).luns().stream().map(l -> l.path()).toList();
        assertEquals(
                List.of(Path.of("/srv/iscsi/lun0.img"), Path.of("/elsewhere/lun1.img"), Path.of("/srv/iscsi/lun2.img")),
                paths,
                "where --data-dir /override given again finds them");
        assertEquals(running.targets(), saved.withDataDir(Path.of("/override")).targets());
    }

    @Test
    void portalsAndChapChangedThroughTheApiAreSavedOverTheFiles() throws Exception {
        TargetConfig file = ConfigLoader.parse(FILE, "t.yaml");
        TargetConfig started = file.withPortals(List.of(Portal.parse("127.0.0.1:13260")));
        List<Portal> added = List.of(Portal.parse("127.0.0.1:13260"), Portal.parse("127.0.0.1:13261"));
        var discovery = ConfigLoader.parseDiscoveryChap("{username: d, secret: discoverysecret1}", "chap.set", started);
        TargetConfig running = started.withPortals(added).withChap(discovery, List.of());

        TargetConfig saved = ConfigSave.toSave(running, started, file);

        assertEquals(added, saved.portals());
        assertEquals(discovery, saved.discoveryChap());
        assertEquals(file.portals(), ConfigSave.toSave(started, started, file).portals(), "unchanged: the file's");
    }

    @Test
    void withoutAConfigFileAPathIsRequiredAndItMustBeAbsolute() throws Exception {
        ConfigSave save = new ConfigSave(null, new ConfigFile(null, ConfigLoader.embeddedDefault()));
        var params = JsonNodeFactory.instance.objectNode();
        AdminError none = assertThrows(AdminError.class, () -> save.call(params));
        assertEquals(AdminError.INVALID_PARAMS, none.code);
        assertTrue(
                none.getMessage().contains("params.path is required")
                        && none.getMessage().contains("embedded default"),
                none.getMessage());

        AdminError relative = assertThrows(AdminError.class, () -> save.call(params.put("path", "saved.yaml")));
        assertEquals(AdminError.INVALID_PARAMS, relative.code);
        assertTrue(relative.getMessage().contains("must be an absolute path"), relative.getMessage());
    }
}
