package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admin CLI (numa-iscsi-admin) against a running daemon while an initiator is logged in: the tree and JSON
 * listings show the target, its LUN and the session; a LUN added and removed through the CLI is seen by the session
 * (REPORT LUNS, REPORTED LUNS DATA HAS CHANGED) without disturbing it; bad requests exit 1 with the config file's
 * message naming the field; each change leaves one audit line; the socket is the owner's only.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminCliTest {
    static final Duration CLI_LIMIT = AdminCliRun.LIMIT;
    static final String CLI_CLASS = AdminCliRun.CLI_CLASS;

    private DaemonProcess daemon;
    private Path socket;
    private AdminCliRun cli;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        daemon = DaemonProcess.start("AdminCliTest", DaemonProcess.Setup.fileLun(16L << 20));
        socket = daemon.dataDir().resolve("admin.sock");
        cli = new AdminCliRun("AdminCliTest", socket);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ToolRun admin(String... args) throws Exception {
        return cli.run(args);
    }

    private static String ok(ToolRun r) throws Exception {
        return AdminCliRun.ok(r);
    }

    @Test
    void listsAndChangesTheTargetWhileAnInitiatorIsLoggedIn() throws Exception {
        String iqn = daemon.target().iqn();
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)),
                "the admin socket is the daemon user's only");
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            byte[] before = ScsiCdb.pattern(4096, 5);
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 0, 64, before).status(), "WRITE to LUN 0");

            JsonNode listing = new ObjectMapper().readTree(ok(admin("--json", "ls")));
            JsonNode target = listing.path("targets").get(0);
            assertEquals(iqn, target.path("name").asText(), listing.toPrettyString());
            assertEquals(0, target.path("luns").get(0).path("id").asInt(), listing.toPrettyString());
            assertEquals(16L << 20, target.path("luns").get(0).path("size").asLong(), listing.toPrettyString());
            JsonNode session = listing.path("sessions").get(0);
            assertEquals(
                    TestConnection.INITIATOR_NAME, session.path("initiator").asText(), listing.toPrettyString());
            assertTrue(session.path("address").asText().startsWith("127.0.0.1:"), listing.toPrettyString());
            assertTrue(session.path("negotiated").path("MaxBurstLength").asInt() > 0, listing.toPrettyString());

            String tree = ok(admin("ls"));
            assertTrue(
                    tree.contains("o- " + iqn)
                            && tree.contains("o- lun0  file")
                            && tree.contains(
                                    "o- tsih " + session.path("tsih").asInt() + "  " + TestConnection.INITIATOR_NAME),
                    tree);

            ok(admin("lun-add", iqn, "--id", "1", "--backing", "ram", "--size", "8M"));
            assertEquals(List.of(0, 1), LunChecks.reportLuns(c), "REPORT LUNS right after lun-add returned");
            LunChecks.assertUnitAttention(
                    LunChecks.command(c, 0, ScsiCdb.testUnitReady(), 0),
                    0x3F,
                    0x0E,
                    "LUN 0 after lun-add (REPORTED LUNS DATA HAS CHANGED)");
            byte[] onNew = ScsiCdb.pattern(8192, 9);
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 1, 16, onNew).status(), "WRITE to the added LUN 1");
            assertArrayEquals(
                    onNew, LunChecks.command(c, 1, ScsiCdb.read10(16, 16), 8192).data(), "read back, LUN 1");

            ToolRun badSize = admin("lun-add", iqn, "--id", "2", "--backing", "ram", "--size", "12x");
            assertEquals(1, badSize.exitCode(), badSize.describe(10));
            assertTrue(
                    badSize.output().contains("lun.add params.lun")
                            && badSize.output().contains("size"),
                    "the config file's message, naming the field: " + badSize.output());
            ToolRun twice = admin("lun-add", iqn, "--id", "1", "--backing", "ram", "--size", "8M");
            assertEquals(1, twice.exitCode(), twice.describe(10));
            assertTrue(twice.output().contains("already has LUN 1"), twice.output());
            ToolRun noTarget = admin("lun-remove", "iqn.2026-11.example:none", "--id", "0");
            assertEquals(1, noTarget.exitCode(), noTarget.describe(10));
            assertTrue(noTarget.output().contains("no target named iqn.2026-11.example:none"), noTarget.output());
            ToolRun badLevel = admin("log-level", "loud");
            assertEquals(1, badLevel.exitCode(), badLevel.describe(10));

            ok(admin("lun-remove", iqn, "--id", "1"));
            assertEquals(List.of(0), LunChecks.reportLuns(c), "REPORT LUNS right after lun-remove returned");
            LunChecks.assertUnitAttention(
                    LunChecks.command(c, 0, ScsiCdb.testUnitReady(), 0), 0x3F, 0x0E, "LUN 0 after lun-remove");
            assertArrayEquals(
                    before,
                    LunChecks.command(c, 0, ScsiCdb.read10(64, 8), 4096).data(),
                    "LUN 0 kept its data and the session its flow through both changes");
            c.ping();
        }
        String log = Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
        assertTrue(log.contains("admin: add LUN 1 (ram, 8388608 bytes) to " + iqn), daemon.logTail());
        assertTrue(log.contains("admin: remove LUN 1 from " + iqn), daemon.logTail());
        TestConnection.assertFreshSessionWorks(daemon);
    }

    @Test
    void cacheAndThreadsShowWhatTheReadsDid() throws Exception {
        String iqn = daemon.target().iqn();
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(
                        ScsiResult.GOOD,
                        LunChecks.command(c, 0, ScsiCdb.read10(2048, 8), 4096).status());
            }
        }
        JsonNode cache = new ObjectMapper().readTree(ok(admin("--json", "cache")));
        JsonNode lun = cache.path("luns").get(0);
        assertEquals(iqn, lun.path("target").asText(), cache.toPrettyString());
        long lookups = lun.path("hits").asLong()
                + lun.path("misses").asLong()
                + lun.path("bypasses").asLong();
        assertTrue(lookups >= 3, "three reads looked up: " + cache.toPrettyString());
        assertEquals(
                (double) lun.path("hits").asLong() / lookups,
                lun.path("hit_ratio").asDouble(),
                1e-9,
                "the ratio counts misses and bypasses too");
        assertTrue(cache.path("pools").get(0).path("bytes").asLong() > 0, cache.toPrettyString());
        String cacheText = ok(admin("cache"));
        assertTrue(cacheText.contains(iqn + " LUN 0: holds"), cacheText);

        JsonNode threads = new ObjectMapper().readTree(ok(admin("--json", "threads")));
        boolean served = false;
        for (JsonNode t : threads) {
            for (JsonNode l : t.path("luns")) {
                served |= l.asText().equals(iqn + " LUN 0")
                        && t.path("executed_commands").asLong() >= 3;
            }
        }
        assertTrue(served, "the thread of LUN 0 executed the reads: " + threads.toPrettyString());
    }

    /**
     * lun-add takes the config file's backings: a null LUN serves at once (zeroes read, writes dropped), and an rbd
     * LUN's keys are refused with the config file's messages before any cluster is asked (RbdLunTest adds one live).
     */
    @Test
    void lunAddTakesEveryBackingOfTheConfigFileWithItsRules() throws Exception {
        String iqn = daemon.target().iqn();
        ok(admin("lun-add", iqn, "--id", "5", "--backing", "null", "--size", "64M"));
        try {
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                assertEquals(List.of(0, 5), LunChecks.reportLuns(c), "REPORT LUNS with the null LUN");
                assertEquals(
                        ScsiResult.GOOD,
                        LunChecks.write(c, 5, 8, ScsiCdb.pattern(4096, 3)).status());
                assertArrayEquals(
                        new byte[4096],
                        LunChecks.command(c, 5, ScsiCdb.read10(8, 8), 4096).data(),
                        "a null LUN reads zeroes");
            }
            JsonNode lun = new ObjectMapper()
                    .readTree(ok(admin("--json", "ls")))
                    .path("targets")
                    .get(0)
                    .path("luns")
                    .get(1);
            assertEquals("null", lun.path("backing").asText(), lun.toPrettyString());
            assertEquals(64L << 20, lun.path("size").asLong(), lun.toPrettyString());
        } finally {
            ok(admin("lun-remove", iqn, "--id", "5"));
        }
        String[][] refused = {
            {"image: is required for backing: rbd", "--backing", "rbd"},
            {"size: is not used with backing: rbd", "--backing", "rbd", "--image", "vm1", "--size", "1G"},
            {"path: is only used with backing: file or block", "--backing", "rbd", "--image", "vm1", "--path", "/x"},
            {"rbd-timeout: ", "--backing", "rbd", "--image", "vm1", "--rbd-timeout", "0s"},
            {"rbd-user: \"a b\" is not a Ceph client id", "--backing", "rbd", "--image", "vm1", "--rbd-user", "a b"},
            {"pool: is only used with backing: rbd", "--backing", "ram", "--size", "1M", "--pool", "fast"},
        };
        for (String[] t : refused) {
            List<String> args = new ArrayList<>(List.of("lun-add", iqn, "--id", "6"));
            args.addAll(List.of(t).subList(1, t.length));
            ToolRun r = admin(args.toArray(String[]::new));
            assertEquals(1, r.exitCode(), r.describe(10));
            assertTrue(
                    r.output().contains("lun.add params.lun") && r.output().contains(t[0]),
                    "the config file's message naming the key: " + r.output());
        }
    }

    @Test
    void noDaemonOnTheSocketExitsThree() throws Exception {
        ToolRun r = cli.runRaw(
                List.of("--socket", daemon.dataDir().resolve("nobody-here.sock").toString(), "status"));
        assertEquals(3, r.exitCode(), r.describe(10));
        assertTrue(r.output().contains("no daemon answers on"), r.output());
    }
}
