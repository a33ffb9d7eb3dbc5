package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The saved configuration: a LUN added through {@code numa-iscsi-admin lun-add} and written with {@code save} is
 * served again after a restart with the same command line (same listing, the data written before the restart read
 * back from its file); a LUN added and not saved is removed by a SIGHUP, with one warning naming it; and
 * {@code --check-config} on a good and a bad file.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SavedConfigTest {
    static final String NAME = "SavedConfigTest";
    static final int EXIT_CONFIG = 2;
    static final Duration LIMIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private RestartableDaemon daemon;
    private Path socket;
    private Path config;
    private AdminCliRun cli;
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        daemon = RestartableDaemon.start(NAME, DaemonProcess.Setup.fileLun(16L << 20));
        socket = daemon.dataDir().resolve("admin.sock");
        config = daemon.dataDir().resolve("target.yaml");
        cli = new AdminCliRun(NAME, socket);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ToolRun run(String mainClass, List<String> args) throws Exception {
        Path log = DaemonProcess.logDir().resolve(NAME + "-run-" + runs.incrementAndGet() + ".log");
        return ToolRun.run(log, LIMIT, DaemonProcess.command(NAME + "-tool", mainClass, args));
    }

    private String admin(String... args) throws Exception {
        ToolRun r = cli.run(args);
        assertEquals(0, r.exitCode(), r.describe(20) + "\n" + daemon.logTail());
        return r.output();
    }

    /** Each target's name and LUNs (id, backing, size, block size, path): what a restart must give back. */
    private List<String> listing() throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode t : JSON.readTree(admin("--json", "ls")).path("targets")) {
            out.add("target " + t.path("name").asText());
            for (JsonNode l : t.path("luns")) {
                out.add("  lun " + l.path("id").asInt() + " "
                        + l.path("backing").asText() + " " + l.path("size").asLong() + " "
                        + l.path("block_size").asInt() + " " + l.path("path").asText("-"));
            }
        }
        return out;
    }

    private String log() throws Exception {
        return Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void aSavedLunSurvivesARestartAndAnUnsavedOneGoesAtASighupWithAWarning() throws Exception {
        String iqn = daemon.target().iqn();
        admin("lun-add", iqn, "--id", "1", "--backing", "file", "--path", "lun1.img", "--size", "8M");
        byte[] onLun0 = ScsiCdb.pattern(4096, 3);
        byte[] onLun1 = ScsiCdb.pattern(8192, 7);
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 0, 64, onLun0).status(), "WRITE to LUN 0");
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 1, 16, onLun1).status(), "WRITE to the added LUN 1");
        }
        String original = Files.readString(config);

        String saved = admin("save");
        assertTrue(
                saved.contains("saved the running configuration (1 targets, 2 LUNs) to " + config.toRealPath()), saved);
        assertEquals(original, Files.readString(config.resolveSibling("target.yaml.bak")), "the previous file kept");
        String text = Files.readString(config);
        assertTrue(text.contains("path: lun1.img\n") && text.contains("size: 8M\n"), text);
        assertTrue(
                log().contains("admin: saved the running configuration to " + config.toRealPath()
                        + " (1 targets, 2 LUNs)"),
                daemon.logTail());
        List<String> before = listing();
        assertEquals(3, before.size(), before.toString());

        assertEquals(0, daemon.restart(), "a clean stop\n" + daemon.logTail());

        assertEquals(before, listing(), "the same targets and LUNs after the restart");
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            assertArrayEquals(
                    onLun1,
                    LunChecks.command(c, 1, ScsiCdb.read10(16, 16), 8192).data(),
                    "LUN 1's data, written before the restart, read back from its file");
            assertArrayEquals(
                    onLun0, LunChecks.command(c, 0, ScsiCdb.read10(64, 8), 4096).data(), "LUN 0's data");
        }

        admin("lun-add", iqn, "--id", "2", "--backing", "ram", "--size", "4M");
        assertEquals(4, listing().size());
        Process hup = new ProcessBuilder("kill", "-HUP", Long.toString(daemon.pid()))
                .inheritIO()
                .start();
        assertEquals(0, hup.waitFor(), "kill -HUP");
        long deadline = System.nanoTime() + LunChecks.APPLIED.toNanos();
        while (!listing().equals(before)) {
            if (System.nanoTime() > deadline) {
                fail("LUN 2 still served after SIGHUP: " + listing() + "\n" + daemon.logTail());
            }
            Thread.sleep(200);
        }
        String warning = "reload: removing 1 LUN(s) added through the admin API that " + config + " does not have: "
                + iqn + " LUN 2 (";
        String log = log();
        assertEquals(log.indexOf(warning), log.lastIndexOf(warning), "warned once");
        assertTrue(
                log.contains(warning) && log.contains("numa-iscsi-admin save writes the running LUNs"),
                daemon.logTail());
        assertFalse(log.contains(" LUN 1 (a reload"), "the saved LUN 1 is in the file: no warning about it");
        daemon.assertAlive();
    }

    @Test
    void checkConfigSaysOkOrNamesTheProblemAndStartsNothing() throws Exception {
        Path dir = daemon.dataDir().resolve("check");
        Files.createDirectories(dir);
        Path unborn = dir.resolve("data-dir-not-created");
        String good = "daemon: {data-dir: " + unborn + "}\n"
                + "portals: [127.0.0.1:" + DaemonProcess.freeLoopbackPort() + "]\n"
                + "targets:\n"
                + "  - name: " + IscsiTarget.DEFAULT_IQN + "\n"
                + "    luns: [{id: 0, path: lun0.img, size: 1M}, {id: 1, backing: ram, size: 1M}]\n";
        Path goodFile = Files.writeString(dir.resolve("good.yaml"), good);
        ToolRun ok = run(DaemonProcess.MAIN_CLASS, List.of("--check-config", goodFile.toString()));
        assertEquals(0, ok.exitCode(), ok.describe(20));
        assertTrue(ok.output().contains(goodFile + ": ok (1 targets, 2 LUNs)"), ok.describe(20));

        Path badFile =
                Files.writeString(dir.resolve("bad.yaml"), good.replace("size: 1M}, {id: 1", "size: 1X}, {id: 1"));
        ToolRun bad = run(DaemonProcess.MAIN_CLASS, List.of("--check-config", badFile.toString()));
        assertEquals(EXIT_CONFIG, bad.exitCode(), bad.describe(20));
        assertTrue(
                bad.output().contains(badFile + ":5: targets[0].luns[0].size: \"1X\" is not a size"), bad.describe(20));
        assertFalse(Files.exists(unborn), "--check-config creates no data directory");
    }
}
