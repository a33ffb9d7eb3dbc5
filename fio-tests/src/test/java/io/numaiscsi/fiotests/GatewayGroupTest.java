package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.numaiscsi.rbd.CephTestCluster;
import io.numaiscsi.rbd.RadosConnection;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three gateways in one gateway group over a throw-away Ceph cluster, each with a file that names only its group: a
 * target made through one member's CLI is served by all (the time each took is measured and written to
 * {@code it-logs/GatewayGroupTest-propagation.txt}), two changes at once end in one configuration, bad input (an image
 * that does not exist, a corrupt group object, one from a newer version or another cluster) is refused whole, a member
 * that was down catches up, and LUN ownership spreads, moves (also away from a stopped member, which is fenced) and
 * rebalances, with initiators told through ALUA; LUN maps set through one member mask the target on all.
 */
@Tag("it")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatewayGroupTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:group-a";
    static final String IQN2 = "iqn.2026-11.io.numaiscsi:group-b";
    static final String GROUP = "itg";
    static final Duration LIMIT = Duration.ofSeconds(30);
    /** What the product states: a change made through one member is served by every member that is up within this. */
    static final Duration PROPAGATION = Duration.ofSeconds(10);

    static final Pattern LUN_LINE =
            Pattern.compile("^  (\\S+) LUN (\\d+)  (\\S+)  owner (\\S+)  served by (\\S+)$", Pattern.MULTILINE);

    static CephTestCluster cluster;
    static Path keyFile;
    static final ConfiguredDaemon[] GW = new ConfiguredDaemon[3];
    static final AdminCliRun[] CLI = new AdminCliRun[3];
    static Path record;

    @BeforeAll
    static void startGroup() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        cluster = CephTestCluster.start(
                DaemonProcess.logDir().resolveSibling("it-ceph").resolve("GatewayGroupTest"),
                Integer.getInteger("it.group.cephPort", 17500));
        for (String image : List.of("ga", "gb", "gc", "gd", "ge")) {
            cluster.createImage(image, 8L << 20);
        }
        keyFile = ItDataDirs.newDir("GatewayGroupTest-key").resolve("group.key");
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Files.writeString(keyFile, Base64.getEncoder().encodeToString(key) + "\n");
        for (int i = 0; i < GW.length; i++) {
            GW[i] = ConfiguredDaemon.start("GatewayGroupTest-gw" + (i + 1), config("gw" + (i + 1)));
            CLI[i] = new AdminCliRun(
                    "GatewayGroupTest-gw" + (i + 1), GW[i].dataDir().resolve("admin.sock"));
        }
        record = DaemonProcess.logDir().resolve("GatewayGroupTest-propagation.txt");
        Files.writeString(record, "change member ms\n");
    }

    @AfterAll
    static void stopGroup() throws Exception {
        for (ConfiguredDaemon d : GW) {
            if (d != null) {
                try {
                    d.signal("CONT");
                } catch (AssertionError e) {
                    // killed by the test, not restarted
                }
                d.close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static String config(String member) {
        return "group:\n  name: " + GROUP + "\n  member: " + member + "\n  ceph-conf: " + cluster.conf()
                + "\n  rbd-user: admin\n  keyring: " + cluster.adminKeyring() + "\n  secret-key-file: " + keyFile
                + "\n";
    }

    @Test
    @Order(1)
    void aTargetMadeThroughOneMemberIsServedByEveryMember() throws Exception {
        long t0 = System.nanoTime();
        CLI[0].ok("target-create", IQN, "--lun", "id=0,backing=rbd,image=ga");
        awaitEverywhere("target-create via gw1", t0, IQN, List.of(0));
        t0 = System.nanoTime();
        CLI[1].ok("lun-add", IQN, "--id", "1", "--backing", "rbd", "--image", "gb");
        awaitEverywhere("lun-add via gw2", t0, IQN, List.of(0, 1));

        Map<String, String[]> luns =
                awaitStatus(CLI[2], s -> s.get(IQN + "/0")[2].equals("gw1") && s.get(IQN + "/1")[2].equals("gw2"));
        assertEquals("gw1", luns.get(IQN + "/0")[1], "a new LUN goes to the member owning the fewest");
        assertEquals("gw2", luns.get(IQN + "/1")[1]);
        try (TestConnection c = login(GW[2], IQN)) {
            assertEquals(
                    1,
                    TargetPortGroupsReport.optimizedGroup(TargetPortGroupsReport.read(c, 0, LIMIT)),
                    "gw3 reports gw1's group active/optimized for LUN 0");
            List<String> groups = TargetPortGroupsReport.read(c, 1, LIMIT);
            assertEquals(2, TargetPortGroupsReport.optimizedGroup(groups), "and gw2's for LUN 1: " + groups);
            assertEquals(3, groups.size(), "one group per member: " + groups);
        }
    }

    @Test
    @Order(2)
    void lunMapsSetThroughOneMemberMaskEveryMember() throws Exception {
        String masked = "iqn.2026-11.io.numaiscsi:masked-host";
        CLI[0].ok(
                "target-set",
                IQN,
                "--lun-maps",
                "[{\"initiators\": [\"" + masked + "\"], \"luns\": [{\"lun\": 1,"
                        + " \"as\": 0}]}, {\"initiators\": [\"*\"], \"luns\": [0, 1]}]");
        for (ConfiguredDaemon d : GW) {
            awaitView(d, masked, List.of(0));
            awaitView(d, "iqn.2026-11.io.numaiscsi:other-host", List.of(0, 1));
        }
        CLI[2].ok("target-set", IQN, "--no-lun-maps");
        for (ConfiguredDaemon d : GW) {
            awaitView(d, masked, List.of(0, 1));
        }
    }

    /** Waits until {@code initiator} sees {@code luns} through {@code d}. */
    private static void awaitView(ConfiguredDaemon d, String initiator, List<Integer> luns) throws Exception {
        long deadline = System.nanoTime() + PROPAGATION.toNanos();
        List<Integer> seen = null;
        while (System.nanoTime() < deadline) {
            Map<String, String> keys = TestConnection.loginKeys(d.target(IQN));
            keys.put("InitiatorName", initiator);
            try (TestConnection c = TestConnection.loggedIn(d.target(IQN), keys, TestConnection.newIsidQualifier())) {
                seen = LunChecks.reportLuns(c);
            }
            if (luns.equals(seen)) {
                return;
            }
            Thread.sleep(200);
        }
        fail(initiator + " sees " + seen + ", not " + luns);
    }

    @Test
    @Order(3)
    void twoChangesAtOnceEndInOneConfiguration() throws Exception {
        CompletableFuture<ToolRun> viaOne = CompletableFuture.supplyAsync(
                () -> run(CLI[0], "target-create", IQN2, "--lun", "id=0,backing=rbd,image=gc"));
        CompletableFuture<ToolRun> viaThree = CompletableFuture.supplyAsync(
                () -> run(CLI[2], "target-create", IQN2, "--lun", "id=0,backing=rbd,image=gd"));
        ToolRun one = viaOne.get();
        ToolRun three = viaThree.get();
        assertTrue(
                one.exitCode() == 0 ^ three.exitCode() == 0,
                "exactly one of the two creations lands\n" + one.describe(10) + "\n" + three.describe(10));
        ToolRun refused = one.exitCode() == 0 ? three : one;
        assertTrue(refused.output().contains("exists already"), refused.describe(10));
        String image = one.exitCode() == 0 ? "rbd/gc" : "rbd/gd";
        awaitEverywhere("concurrent target-create", System.nanoTime(), IQN2, List.of(0));
        List<String> versions = new ArrayList<>();
        for (AdminCliRun cli : CLI) {
            Map<String, String[]> luns = awaitStatus(cli, s -> s.containsKey(IQN2 + "/0"));
            assertEquals(image, luns.get(IQN2 + "/0")[0], "every member serves the creation that landed");
            versions.add(version(cli.ok("group-status")));
        }
        assertEquals(1, versions.stream().distinct().count(), "every member serves the same version: " + versions);
    }

    @Test
    @Order(4)
    void badInputIsRefusedWholeWithItsReason() throws Exception {
        String before = version(CLI[0].ok("group-status"));
        ToolRun missing = CLI[0].run("lun-add", IQN, "--id", "2", "--backing", "rbd", "--image", "nope");
        assertNotEquals(0, missing.exitCode(), missing.describe(10));
        assertTrue(missing.output().contains("RBD image rbd/nope does not exist"), missing.describe(10));
        ToolRun ram = CLI[1].run("lun-add", IQN, "--id", "2", "--backing", "ram", "--size", "1G");
        assertNotEquals(0, ram.exitCode(), ram.describe(10));
        assertTrue(ram.output().contains("serves RBD images only"), ram.describe(10));
        assertEquals(before, version(CLI[0].ok("group-status")), "nothing was written");

        String good = groupObject().text();
        for (String[] bad : List.of(
                new String[] {"group-format: 1\nfsid: [unclosed\n", "is refused"},
                new String[] {good.replace("group-format: 1", "group-format: 2"), "newer version"},
                new String[] {
                    good.replaceFirst("fsid: \\S+", "fsid: 00000000-0000-4000-8000-000000000000"), "belongs to cluster"
                })) {
            writeGroupObject(bad[0]);
            for (AdminCliRun cli : CLI) {
                String status = awaitOutput(cli, "group-status", s -> s.contains("problem: "));
                assertTrue(status.contains(bad[1]), status);
            }
            try (TestConnection c = login(GW[1], IQN)) {
                assertEquals(List.of(0, 1), LunChecks.reportLuns(c), "the members serve the last good version on");
            }
            ToolRun change = CLI[1].run("lun-remove", IQN, "--id", "1");
            assertNotEquals(0, change.exitCode(), change.describe(10));
            assertTrue(change.output().contains(bad[1]), change.describe(10));
            if (bad[1].equals("belongs to cluster")) {
                ToolRun gw4 = ConfiguredDaemon.refusedStart(
                        "GatewayGroupTest-gw4", config("gw4"), DaemonProcess.READY_TIMEOUT);
                assertTrue(gw4.output().contains("belongs to cluster"), gw4.describe(20));
                assertTrue(gw4.output().contains("copied from another cluster"), gw4.describe(20));
            }
            CLI[0].ok("group-restore");
            for (AdminCliRun cli : CLI) {
                awaitOutput(cli, "group-status", s -> !s.contains("problem: "));
            }
        }
    }

    @Test
    @Order(5)
    void aMemberThatWasDownCatchesUp() throws Exception {
        GW[2].kill();
        CLI[0].ok("lun-add", IQN2, "--id", "1", "--backing", "rbd", "--image", "ge");
        GW[2].restart();
        long t0 = System.nanoTime();
        awaitLuns(GW[2], IQN2, List.of(0, 1), t0, "gw3 after its restart");
    }

    @Test
    @Order(6)
    void ownershipMovesAndRebalancesAndInitiatorsFollow() throws Exception {
        String moved = CLI[0].ok("group-move", IQN, "--lun", "0", "--to", "gw3");
        assertTrue(moved.contains("served by gw3"), moved);
        try (TestConnection c = login(GW[0], IQN)) {
            assertEquals(3, awaitOptimized(c, 0, 3), "gw1 reports gw3's group active/optimized for LUN 0");
        }

        // gw2 owns LUN 1 and stalls: the move waits for it to let go, then takes the image by fencing it
        GW[1].signal("STOP");
        long t0 = System.nanoTime();
        CompletableFuture<ToolRun> move =
                CompletableFuture.supplyAsync(() -> run(CLI[0], "group-move", IQN, "--lun", "1", "--to", "gw1"));
        // while gw1 waits for the stalled gw2, an initiator asking gw3 to take LUN 1 is told it is moving
        awaitStatus(CLI[2], s -> "gw1".equals(s.get(IQN + "/1")[1]));
        try (TestConnection c = login(GW[2], IQN)) {
            ScsiResult refused = settleAttention(() -> stpg(c, 1, 3));
            assertEquals(ScsiResult.CHECK_CONDITION, refused.status(), "STPG to gw3 during the move: " + refused);
            assertEquals(0x2, refused.senseKey(), "NOT READY");
            assertEquals(0x04, refused.asc(), "LOGICAL UNIT NOT ACCESSIBLE");
            assertEquals(0x0A, refused.ascq(), "ASYMMETRIC ACCESS STATE TRANSITION");
        }
        String stolen = AdminCliRun.ok(move.get());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        Files.writeString(record, "move-from-stopped gw2 " + ms + "\n", StandardOpenOption.APPEND);
        assertTrue(stolen.contains("served by gw1"), stolen);
        try (TestConnection c = login(GW[0], IQN)) {
            assertEquals(
                    0,
                    settle(() -> RawIo.write(c, 1, 0, new byte[4096], false, LIMIT))
                            .status(),
                    "gw1 writes LUN 1");
        }
        GW[1].signal("CONT");
        Map<String, String[]> luns = awaitStatus(CLI[1], s -> "gw1".equals(s.get(IQN + "/1")[2]));
        assertEquals("gw1", luns.get(IQN + "/1")[2], "the fenced gw2 came back as standby");

        // the owner of LUN 0 dies: an initiator moves it to gw2 with SET TARGET PORT GROUPS
        GW[2].kill();
        try (TestConnection c = login(GW[1], IQN)) {
            assertEquals(0, settle(() -> stpg(c, 0, 2)).status(), "STPG to gw2's group");
            assertEquals(
                    0,
                    settle(() -> RawIo.write(c, 0, 0, new byte[4096], false, LIMIT))
                            .status(),
                    "gw2 writes LUN 0");
        }
        // gw2 records itself as LUN 0's owner, so no later placement pulls the LUN back to gw3
        awaitStatus(CLI[1], s -> "gw2".equals(s.get(IQN + "/0")[1]));
        GW[2].restart();
        Thread.sleep(3000);
        assertEquals(
                "gw2",
                status(CLI[2].ok("group-status")).get(IQN + "/0")[2],
                "a member that comes back gets no LUN back by itself");

        String balanced = CLI[2].ok("group-rebalance");
        Map<String, String[]> after =
                awaitStatus(CLI[0], s -> s.values().stream().allMatch(l -> l[1].equals(l[2])));
        Map<String, Integer> owned = new HashMap<>();
        after.values().forEach(l -> owned.merge(l[1], 1, Integer::sum));
        assertEquals(3, owned.size(), "four LUNs over three members: " + owned + "\n" + balanced);
        assertTrue(owned.values().stream().allMatch(n -> n <= 2), owned.toString());

        CLI[0].ok("group-member-remove", "gw3");
        Map<String, String[]> without =
                awaitStatus(CLI[0], s -> s.values().stream().allMatch(l -> !l[1].equals("gw3") && l[1].equals(l[2])));
        assertTrue(without.values().stream().noneMatch(l -> l[1].equals("gw3")), "gw3's LUNs went to the others");
        long deadline = System.nanoTime() + PROPAGATION.toNanos();
        while (true) {
            try (TestConnection c = login(GW[2], IQN)) {
                if (System.nanoTime() > deadline) {
                    fail("gw3 still serves the group's target after its removal");
                }
            } catch (IOException | AssertionError e) {
                break; // no target to log in to
            }
            Thread.sleep(200);
        }
    }

    // ---- helpers ----

    private static ToolRun run(AdminCliRun cli, String... args) {
        try {
            return cli.run(args);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until every member serves {@code luns} of {@code iqn}; records each one's time since {@code t0}. */
    private static void awaitEverywhere(String change, long t0, String iqn, List<Integer> luns) throws Exception {
        for (int i = 0; i < GW.length; i++) {
            awaitLuns(GW[i], iqn, luns, t0, change + ": gw" + (i + 1));
        }
    }

    private static void awaitLuns(ConfiguredDaemon d, String iqn, List<Integer> luns, long t0, String what)
            throws Exception {
        long deadline = t0 + PROPAGATION.toNanos() + AdminCliRun.LIMIT.toNanos();
        List<Integer> seen = null;
        while (System.nanoTime() < deadline) {
            try (TestConnection c = login(d, iqn)) {
                seen = LunChecks.reportLuns(c);
                if (seen.equals(luns)) {
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    Files.writeString(record, what.replace(' ', '_') + " " + ms + "\n", StandardOpenOption.APPEND);
                    System.out.println("GatewayGroupTest: " + what + " serves " + luns + " after " + ms + " ms");
                    return;
                }
            } catch (IOException | AssertionError e) {
                seen = null; // not there yet
            }
            Thread.sleep(100);
        }
        fail(what + ": " + iqn + " LUNs " + seen + ", not " + luns);
    }

    private static TestConnection login(ConfiguredDaemon d, String iqn) throws IOException {
        return TestConnection.loggedIn(d.target(iqn));
    }

    /** group-status's LUNs by {@code target/lun}: image, owner, served by. */
    private static Map<String, String[]> status(String out) {
        Map<String, String[]> luns = new HashMap<>();
        Matcher m = LUN_LINE.matcher(out);
        while (m.find()) {
            luns.put(m.group(1) + "/" + m.group(2), new String[] {m.group(3), m.group(4), m.group(5)});
        }
        return luns;
    }

    private static String version(String status) {
        Matcher m = Pattern.compile("configuration version (\\d+)").matcher(status);
        assertTrue(m.find(), status);
        return m.group(1);
    }

    private static Map<String, String[]> awaitStatus(AdminCliRun cli, Predicate<Map<String, String[]>> done)
            throws Exception {
        return status(awaitOutput(cli, "group-status", out -> {
            Map<String, String[]> s = status(out);
            try {
                return done.test(s);
            } catch (NullPointerException e) {
                return false; // a LUN not listed yet
            }
        }));
    }

    private static String awaitOutput(AdminCliRun cli, String command, Predicate<String> done) throws Exception {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        String out = "";
        while (System.nanoTime() < deadline) {
            out = cli.ok(command);
            if (done.test(out)) {
                return out;
            }
            Thread.sleep(500);
        }
        fail(command + " did not show what was waited for within " + LIMIT.toSeconds() + " s:\n" + out);
        return out;
    }

    private static int awaitOptimized(TestConnection c, int lun, int group) throws Exception {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        int seen = -1;
        while (System.nanoTime() < deadline) {
            seen = TargetPortGroupsReport.optimizedGroup(TargetPortGroupsReport.read(c, lun, LIMIT));
            if (seen == group) {
                return seen;
            }
            Thread.sleep(200);
        }
        return seen;
    }

    /** SET TARGET PORT GROUPS asking for {@code group} to be active/optimized for {@code lun}. */
    private static ScsiResult stpg(TestConnection c, int lun, int group) throws IOException {
        byte[] cdb = {(byte) 0xA4, 0x0A, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0};
        byte[] list = {0, 0, 0, 0, 0, 0, (byte) (group >> 8), (byte) group};
        return RawIo.write(c, lun, cdb, list, LIMIT);
    }

    /** Runs {@code command} past unit attentions only. */
    private static ScsiResult settleAttention(Callable<ScsiResult> command) throws Exception {
        for (int i = 0; ; i++) {
            ScsiResult r = command.call();
            if (r.status() != ScsiResult.CHECK_CONDITION || r.senseKey() != ScsiResult.UNIT_ATTENTION || i == 10) {
                return r;
            }
        }
    }

    /** Runs {@code command} past unit attentions and NOT READY while the unit moves between gateways. */
    private static ScsiResult settle(Callable<ScsiResult> command) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            ScsiResult r = command.call();
            boolean attention = r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == ScsiResult.UNIT_ATTENTION;
            boolean moving = r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == 0x2 && r.asc() == 0x04;
            if (!(attention || moving) || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(moving ? 100 : 0);
        }
    }

    private static GroupText groupObject() throws IOException {
        try (RadosConnection c = RadosConnection.connect(cluster.admin());
                RadosObject o = RadosObject.open(c, CephTestCluster.POOL)) {
            RadosObject.Versioned v = o.read("numa-iscsi.group." + GROUP);
            return new GroupText(new String(v.data(), StandardCharsets.UTF_8), v.version());
        }
    }

    private static void writeGroupObject(String text) throws IOException {
        try (RadosConnection c = RadosConnection.connect(cluster.admin());
                RadosObject o = RadosObject.open(c, CephTestCluster.POOL)) {
            long v = o.read("numa-iscsi.group." + GROUP).version();
            assertNotEquals(
                    RadosObject.LOST, o.write("numa-iscsi.group." + GROUP, text.getBytes(StandardCharsets.UTF_8), v));
        }
    }

    private record GroupText(String text, long version) {}
}
