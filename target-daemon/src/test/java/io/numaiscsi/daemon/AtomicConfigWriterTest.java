package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.TargetConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The atomic replacement of a config file: what is written loads back, a refusal changes nothing, modes, backup. */
class AtomicConfigWriterTest {
    private static final String HAND_WRITTEN = """
            # the administrator's comments
            daemon: {data-dir: /srv/iscsi}
            targets:
              - name: iqn.2026-11.io.numaiscsi:d
                luns: [{id: 0, backing: ram, size: 1M}]
            """;
    private static final String CHAP = "discovery-chap: {username: d, secret: discovery-secret-16}\n";

    @TempDir
    Path dir;

    private Path file(String yaml, String mode) throws Exception {
        Path f = Files.writeString(dir.resolve("target.yaml"), yaml);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private static String mode(Path f) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(f));
    }

    private List<String> names() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The hand-written file's configuration with a second LUN, as if added through the admin API. */
    private static TargetConfig withSecondLun(Path f) throws Exception {
        TargetConfig c = ConfigLoader.load(f);
        var t = c.targets().get(0);
        var lun1 = ConfigLoader.parseLun("{id: 1, backing: file, path: lun1.img, size: 8M}", "test", c, t);
        return c.withTargets(List.of(t.withLuns(List.of(t.luns().get(0), lun1))));
    }

    @Test
    void theFileIsReplacedByTheConfigAndThePreviousOneKeptAsBak() throws Exception {
        Path f = file(HAND_WRITTEN, "rw-r-----");
        TargetConfig wanted = withSecondLun(f);

        assertEquals(f.toRealPath(), AtomicConfigWriter.write(f, wanted));

        assertEquals(wanted, ConfigLoader.load(f));
        assertTrue(Files.readString(f).contains("path: lun1.img"), Files.readString(f));
        assertEquals(HAND_WRITTEN, Files.readString(dir.resolve("target.yaml.bak")), "comments and layout kept there");
        assertEquals("rw-r-----", mode(f), "the replaced file's mode, without secrets");
        assertEquals("rw-r-----", mode(dir.resolve("target.yaml.bak")));
        assertEquals(List.of("target.yaml", "target.yaml.bak"), names(), "no temporary file left");

        String firstSave = Files.readString(f);
        AtomicConfigWriter.write(f, ConfigLoader.load(f));
        assertEquals(firstSave, Files.readString(dir.resolve("target.yaml.bak")), "one generation of backup");
        assertEquals(firstSave, Files.readString(f), "the same configuration gives the same text");
    }

    @Test
    void aConfigThatDoesNotLoadChangesNothingAndLeavesNoTemporaryFile() throws Exception {
        Path f = file(HAND_WRITTEN, "rw-r--r--");
        byte[] before = Files.readAllBytes(f);
        TargetConfig c = ConfigLoader.load(f);
        TargetConfig noLuns = c.withTargets(List.of(c.targets().get(0).withLuns(List.of())));

        ConfigException e = assertThrows(ConfigException.class, () -> AtomicConfigWriter.write(f, noLuns));

        assertTrue(e.getMessage().startsWith(f.toRealPath() + ":"), "names the file: " + e.getMessage());
        assertEquals("targets[0].luns", e.keyPath());
        assertArrayEquals(before, Files.readAllBytes(f), "the file is unchanged");
        assertEquals(List.of("target.yaml"), names(), "no temporary file and no backup");
    }

    @Test
    void aConfigWithSecretsIsTheOwnersOnly() throws Exception {
        Path f = file(CHAP + HAND_WRITTEN, "rw-r--r--");
        AtomicConfigWriter.write(f, ConfigLoader.load(f));
        assertEquals("rw-------", mode(f));
        assertTrue(Files.readString(f).contains("secret: discovery-secret-16"), "the secret survives a restart");

        Path fresh = dir.resolve("new-with-secrets.yaml");
        AtomicConfigWriter.write(fresh, ConfigLoader.load(f));
        assertEquals("rw-------", mode(fresh));
    }

    @Test
    void aNewFileWithoutSecretsIsReadableByAll() throws Exception {
        Path fresh = dir.resolve("sub.yaml");
        TargetConfig c = ConfigLoader.parse(HAND_WRITTEN, "x.yaml");
        AtomicConfigWriter.write(fresh, c);
        assertEquals("rw-r--r--", mode(fresh));
        assertEquals(c, ConfigLoader.load(fresh));
        assertFalse(Files.exists(dir.resolve("sub.yaml.bak")), "nothing to back up");
    }

    @Test
    void aSymbolicLinkStaysALinkToTheFileWritten() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real")).resolve("target.yaml");
        Files.writeString(real, HAND_WRITTEN);
        Path link = Files.createSymbolicLink(dir.resolve("link.yaml"), real);
        TargetConfig wanted = withSecondLun(link);

        assertEquals(real.toRealPath(), AtomicConfigWriter.write(link, wanted));

        assertTrue(Files.isSymbolicLink(link));
        assertEquals(wanted, ConfigLoader.load(real));
        assertEquals(HAND_WRITTEN, Files.readString(real.resolveSibling("target.yaml.bak")));
    }
}
