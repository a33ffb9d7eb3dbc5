package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A local user against the root daemon's files: the data directory created first by another user with
 * {@code lun0.img} planted as a symbolic link to a root-only file, a data directory everyone may write, a symbolic
 * link in the daemon's own directory, the modes of a fresh start under umask 000, and a configuration file with a
 * CHAP secret others may read. The planting runs as nobody ({@code setpriv}); each refusal is exit code 1 (2 for the
 * configuration file) with a message naming the path and the fix, and the victim files stay as they were.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalUserTest {
    static final int EXIT_STARTUP = 1;
    static final int EXIT_CONFIG = 2;
    static final int NOBODY = 65534;
    static final long LUN_BYTES = 1L << 20;
    static final Duration LIMIT = Duration.ofSeconds(60);
    static final String CHAP = "discovery-chap: {username: discoverer, secret: discovery-secret-89}\n";

    /** 0755, so nobody can reach {@link #shared}. */
    private Path base;
    /** 1777, as /var/tmp. */
    private Path shared;
    /** 0700 root: where the victims live. */
    private Path vault;

    @BeforeAll
    void directories() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Assumptions.assumeTrue(new UnixSystem().getUid() == 0, "plants files as nobody and checks root's daemon");
        base = ItDataDirs.newDir("LocalUserTest");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        shared = Files.createDirectory(base.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 01777);
        vault = Files.createDirectory(base.resolve("root-only"));
        Files.setPosixFilePermissions(vault, PosixFilePermissions.fromString("rwx------"));
    }

    @AfterAll
    void deleteDirectories() throws IOException {
        if (base == null || Boolean.getBoolean("it.keepData")) {
            return;
        }
        try (Stream<Path> files = Files.walk(base)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** A root-only file of the LUN's size that a symbolic link could make the daemon write. */
    private record Victim(Path path, byte[] contents, FileTime modified) {
        static Victim create(Path path) throws IOException {
            byte[] contents = new byte[(int) LUN_BYTES];
            new Random(path.hashCode()).nextBytes(contents);
            Files.write(path, contents);
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            return new Victim(path, contents, Files.getLastModifiedTime(path));
        }

        void assertUntouched() throws IOException {
            assertArrayEquals(contents, Files.readAllBytes(path), path + " was changed");
            assertEquals(modified, Files.getLastModifiedTime(path), path + " was written");
        }
    }

    private static String quoted(Path p) {
        return "'" + p.toString().replace("'", "'\\''") + "'";
    }

    /** Runs {@code script} with sh as nobody: uid and gid 65534, no supplementary groups. */
    private static void asNobody(String name, String script) throws Exception {
        ToolRun r = ToolRun.run(
                DaemonProcess.logDir().resolve("LocalUserTest-" + name + "-nobody.log"),
                LIMIT,
                List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "sh", "-c", script));
        assertEquals(0, r.exitCode(), r.describe(20));
    }

    /** LUN 0 and LUN 1 are the files lun0.img and lun1.img of {@code dataDir}. */
    private static String config(Path dataDir, String moreDaemonKeys, String sections) throws IOException {
        return "daemon:\n  data-dir: " + dataDir + "\n" + moreDaemonKeys
                + "portals: [127.0.0.1:" + DaemonProcess.freeLoopbackPort() + "]\n"
                + sections
                + "targets:\n"
                + "  - name: " + IscsiTarget.DEFAULT_IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: file, path: lun0.img, size: 1M}\n"
                + "      - {id: 1, backing: file, path: lun1.img, size: 1M}\n";
    }

    /** Runs the daemon on {@code yaml} (a file of this mode in {@link #base}) and expects it to exit by itself. */
    private ToolRun refusedStart(String name, String yaml, String permissions) throws Exception {
        Path config = base.resolve(name + ".yaml");
        Files.writeString(config, yaml, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString(permissions));
        ToolRun r = ToolRun.run(
                DaemonProcess.logDir().resolve("LocalUserTest-" + name + ".log"),
                LIMIT,
                DaemonProcess.command("LocalUserTest", List.of("--config", config.toString())));
        assertFalse(r.timedOut(), "the daemon did not refuse to start\n" + r.describe(20));
        return r;
    }

    private static String permissions(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aDataDirCreatedFirstByAnotherUserWithPlantedLinksIsRefused() throws Exception {
        Path neverCreated = vault.resolve("created-by-the-daemon.img");
        Victim victim = Victim.create(vault.resolve("existing.img"));
        Path dataDir = shared.resolve("numa-iscsi-target");
        asNobody(
                "plant",
                "umask 000 && mkdir " + quoted(dataDir)
                        + " && ln -s " + quoted(neverCreated) + " " + quoted(dataDir.resolve("lun0.img"))
                        + " && ln -s " + quoted(victim.path()) + " " + quoted(dataDir.resolve("lun1.img")));
        assertEquals(NOBODY, Files.getAttribute(dataDir, "unix:uid", LinkOption.NOFOLLOW_LINKS), "nobody made it");

        ToolRun r = refusedStart("planted", config(dataDir, "", ""), "rw-------");
        assertEquals(EXIT_STARTUP, r.exitCode(), r.describe(20));
        String expected = "numa-iscsi-target: cannot start: data directory " + dataDir + " is owned by uid " + NOBODY
                + ", not by the daemon's user root (uid 0)";
        assertTrue(r.output().contains(expected), "expected " + expected + "\n" + r.describe(20));
        assertFalse(Files.exists(neverCreated, LinkOption.NOFOLLOW_LINKS), neverCreated + " was created");
        victim.assertUntouched();
    }

    @Test
    void aDataDirEveryoneMayWriteIsRefused() throws Exception {
        Path dataDir = Files.createDirectory(base.resolve("world-writable"));
        Files.setAttribute(dataDir, "unix:mode", 0777);
        ToolRun r = refusedStart("world-writable", config(dataDir, "", ""), "rw-------");
        assertEquals(EXIT_STARTUP, r.exitCode(), r.describe(20));
        String expected = "numa-iscsi-target: cannot start: data directory " + dataDir + " is writable by group or"
                + " others (mode 0777), so another user could plant or replace LUN files in it: chmod 700 " + dataDir;
        assertTrue(r.output().contains(expected), "expected " + expected + "\n" + r.describe(20));
        assertFalse(Files.exists(dataDir.resolve("lun0.img")), "no LUN file was created");
    }

    @Test
    void aSymbolicLinkInThePrivateDataDirIsRefused() throws Exception {
        Path dataDir = Files.createDirectory(base.resolve("private"));
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
        Victim victim = Victim.create(vault.resolve("linked.img"));
        Path link = Files.createSymbolicLink(dataDir.resolve("lun0.img"), victim.path());

        ToolRun r = refusedStart("private-link", config(dataDir, "", ""), "rw-------");
        assertEquals(EXIT_STARTUP, r.exitCode(), r.describe(20));
        String expected = "numa-iscsi-target: cannot start: backing file " + link + " is a symbolic link (to "
                + victim.path() + "); the daemon does not follow symbolic links to backing files";
        assertTrue(r.output().contains(expected), "expected " + expected + "\n" + r.describe(20));
        victim.assertUntouched();
    }

    @Test
    void aFreshStartUnderUmask000CreatesTheDataDirAndLunFileForRootAlone() throws Exception {
        Path dataDir = base.resolve("fresh/deeper/data");
        try (DaemonProcess d = DaemonProcess.start(
                "LocalUserTest-umask000",
                DaemonProcess.Setup.fileLun(LUN_BYTES).umask("000").daemonArgs("--data-dir", dataDir.toString()))) {
            assertTrue(
                    Files.readString(Path.of("/proc/" + d.pid() + "/status")).contains("\nUmask:\t0000\n"),
                    "the daemon runs under umask 000");
            assertEquals("rwx------", permissions(base.resolve("fresh")));
            assertEquals("rwx------", permissions(base.resolve("fresh/deeper")));
            assertEquals("rwx------", permissions(dataDir));
            assertEquals("rw-------", permissions(dataDir.resolve("lun0.img")));
            assertEquals(LUN_BYTES, Files.size(dataDir.resolve("lun0.img")));
            d.assertAlive();
            assertEquals(0, d.stop(), d.logTail());
        }
    }

    @Test
    void aConfigWithASecretOthersMayReadIsWarnedAboutOrRefused() throws Exception {
        try (DaemonProcess d = DaemonProcess.start(
                "LocalUserTest-readable-config",
                DaemonProcess.Setup.fileLun(LUN_BYTES).section(CHAP).configPermissions("rw-r--r--"))) {
            d.assertAlive();
            List<String> warnings = Files.readAllLines(d.log()).stream()
                    .filter(l -> l.contains(" WARN ")
                            && l.contains("target.yaml: holds CHAP secrets but is readable by"
                                    + " group or others (mode 0644): chmod 600 "))
                    .toList();
            assertEquals(1, warnings.size(), d.logTail());
            assertTrue(
                    warnings.get(0).endsWith("(daemon.secret-file-check: refuse makes this a refusal)"),
                    warnings.get(0));
        }

        Path dataDir = Files.createDirectory(base.resolve("refusing"));
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
        ToolRun r =
                refusedStart("readable-config", config(dataDir, "  secret-file-check: refuse\n", CHAP), "rw-r--r--");
        assertEquals(EXIT_CONFIG, r.exitCode(), r.describe(20));
        Path file = base.resolve("readable-config.yaml");
        String expected = file + ": holds CHAP secrets but is readable by group or others (mode 0644): chmod 600 "
                + file + " (daemon.secret-file-check: refuse)";
        assertTrue(r.output().contains(expected), "expected " + expected + "\n" + r.describe(20));
        assertFalse(Files.exists(dataDir.resolve("lun0.img")), "refused before any LUN file was created");
    }
}
