package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.rbd.CephTestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A gateway group as a Linux initiator uses it (qemu guest, {@code vm/guest/group-multipath.sh}): three daemons on
 * this host, members of one group over a throw-away Ceph cluster, serve one target with two RBD LUNs made through one
 * member's CLI (LUN 0 owned by gw1, LUN 1 by gw2). The guest logs in through all three, runs dm-multipath with ALUA
 * priorities (two maps, each active through its owner) and fio with crc32c verify on both while this test kill -9's
 * gw1 (then restarts it), moves LUN 1 with {@code group-move} (multipath follows it to the new owner; LUN 0 stays where it is served), and stops the gateway then serving
 * LUN 1 for 10 s (SIGSTOP, then SIGCONT): each time the LUNs of the failed gateway move to another (Linux's ALUA
 * handler, fenced at the store), I/O continues, the verifies pass, and the failed gateway's paths come back as standby.
 */
@Tag("it")
class GroupMultipathGuestTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:group-mp";
    static final long IMAGE_BYTES = 96L << 20;
    static final long FIO_BYTES = 48L << 20;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(12);
    static final Duration STALL = Duration.ofSeconds(10);

    private static String config(String member, CephTestCluster c, Path key) {
        return "group:\n  name: guest\n  member: " + member + "\n  ceph-conf: " + c.conf()
                + "\n  rbd-user: admin\n  keyring: " + c.adminKeyring() + "\n  secret-key-file: " + key + "\n";
    }

    @Test
    void lunsMoveOffAKilledAndAStoppedGatewayAndTheVerifiesPass() throws Exception {
        VmRun.image();
        try (CephTestCluster cluster = CephTestCluster.start(
                DaemonProcess.logDir().resolveSibling("it-ceph").resolve("GroupMultipathGuestTest"), 17600)) {
            cluster.createImage("gm0", IMAGE_BYTES);
            cluster.createImage("gm1", IMAGE_BYTES);
            Path key = ItDataDirs.newDir("GroupMultipathGuestTest-key").resolve("group.key");
            Files.writeString(key, Base64.getEncoder().encodeToString(new byte[32]) + "\n");
            try (ConfiguredDaemon gw1 =
                            ConfiguredDaemon.start("GroupMultipathGuestTest-gw1", config("gw1", cluster, key));
                    ConfiguredDaemon gw2 =
                            ConfiguredDaemon.start("GroupMultipathGuestTest-gw2", config("gw2", cluster, key));
                    ConfiguredDaemon gw3 =
                            ConfiguredDaemon.start("GroupMultipathGuestTest-gw3", config("gw3", cluster, key))) {
                AdminCliRun cli =
                        new AdminCliRun("GroupMultipathGuestTest", gw3.dataDir().resolve("admin.sock"));
                cli.ok(
                        "target-create",
                        IQN,
                        "--lun",
                        "id=0,backing=rbd,image=gm0",
                        "--lun",
                        "id=1,backing=rbd,image=gm1");
                String before = cli.ok("group-status");
                assertTrue(before.contains("LUN 0  rbd/gm0  owner gw1"), before);
                assertTrue(before.contains("LUN 1  rbd/gm1  owner gw2"), before);
                int[] kills = {0};
                int[] stalls = {0};
                int[] moves = {0};
                VmRun run = VmRun.run(
                        "group-multipath",
                        gw1.target(IQN).port(),
                        "group-multipath.sh",
                        Map.of(
                                "IQN",
                                IQN,
                                "PORT2",
                                Integer.toString(gw2.target(IQN).port()),
                                "PORT3",
                                Integer.toString(gw3.target(IQN).port()),
                                "FIO_SIZE",
                                Long.toString(FIO_BYTES)),
                        GUEST_LIMIT,
                        request -> {
                            String[] words = request.split("-gw", 2);
                            ConfiguredDaemon gw = words.length < 2
                                    ? null
                                    : switch (words[1]) {
                                        case "1" -> gw1;
                                        case "2" -> gw2;
                                        case "3" -> gw3;
                                        default -> null;
                                    };
                            if (gw == null) {
                                return "error: unknown request " + request;
                            }
                            switch (words[0]) {
                                case "kill" -> {
                                    kills[0]++;
                                    return "ok: gw" + words[1] + " killed, exit code " + gw.kill();
                                }
                                case "restart" -> {
                                    gw.restart();
                                    return "ok: gw" + words[1] + " restarted";
                                }
                                case "stall" -> {
                                    stalls[0]++;
                                    return HaMultipathGuestTest.stall(gw, STALL);
                                }
                                case "move-lun1" -> {
                                    moves[0]++;
                                    return "ok: " + cli.ok("group-move", IQN, "--lun", "1", "--to", "gw" + words[1]);
                                }
                                default -> {
                                    return "error: unknown request " + request;
                                }
                            }
                        });
                String after = cli.ok("group-status");
                String context = "\n" + run.describe() + "\n" + after + "\n" + gw1.logTail() + "\n" + gw2.logTail()
                        + "\n" + gw3.logTail();
                if (Files.exists(run.serialLog())) {
                    Files.copy(
                            run.serialLog(),
                            DaemonProcess.logDir().resolve("GroupMultipathGuestTest.serial.log"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
                assertTrue(run.succeeded(), "guest test group-multipath.sh" + context);
                assertEquals(1, kills[0], "gw1 was killed once" + context);
                assertEquals(1, stalls[0], "one gateway was stopped once" + context);
                assertEquals(1, moves[0], "LUN 1 was moved once" + context);
                assertTrue(!after.contains("served by nobody"), "every LUN is served after the failures" + context);
                gw1.assertAlive();
                gw2.assertAlive();
                gw3.assertAlive();
            }
        }
    }
}
