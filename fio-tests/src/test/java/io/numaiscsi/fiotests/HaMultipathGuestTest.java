package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.rbd.CephTestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The highly available gateway pair as a Linux initiator uses it (qemu guest, {@code vm/guest/ha-multipath.sh}): two
 * daemons on this host, started with the two gateways' files of {@code docs/high-availability.md} (only the site's
 * names replaced: {@link DocGatewayFiles}), export one RBD image (with the default features, exclusive-lock among them) of a throw-away
 * Ceph cluster under one target name, A in ALUA group 1 (configured active/optimized: it takes the image's lock), B
 * in group 2 (standby until an initiator moves the image), persistent reservations shared through RADOS. The guest
 * logs in to both (two forwards), checks a reservation taken through B is enforced through A, runs dm-multipath with
 * ALUA priorities (A's group active), and fio with crc32c verify on the multipath device while this test first
 * stops A for 10 s (SIGSTOP, then SIGCONT) and later kill -9's it: each time I/O continues through B (Linux's ALUA
 * handler moves the image there with SET TARGET PORT GROUPS, which fences A) and the verify passes; A's path comes
 * back as standby, after the stall and after a restart.
 */
@Tag("it")
class HaMultipathGuestTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:ha-mp";
    static final long IMAGE_BYTES = 128L << 20;
    static final long FIO_BYTES = 64L << 20;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(10);
    /** How long gateway A is stopped (SIGSTOP) under the guest's I/O. */
    static final Duration STALL = Duration.ofSeconds(10);

    /** Stops the daemon now and continues it after {@code pause}, without waiting for that. */
    static String stall(ConfiguredDaemon d, Duration pause) throws IOException, InterruptedException {
        d.signal("STOP");
        Thread resume = new Thread(
                () -> {
                    try {
                        Thread.sleep(pause.toMillis());
                        d.signal("CONT");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                "continue gateway A");
        resume.setDaemon(true);
        resume.start();
        return "ok: gateway A stopped for " + pause.toSeconds() + " s";
    }

    @Test
    void multipathFailsOverToTheOtherGatewayAndBackAndReservationsHoldAcrossThem() throws Exception {
        VmRun.image();
        try (CephTestCluster cluster = CephTestCluster.start(
                DaemonProcess.logDir().resolveSibling("it-ceph").resolve("HaMultipathGuestTest"), 17200)) {
            cluster.createImage("ha", IMAGE_BYTES); // the default features: exclusive-lock among them
            try (ConfiguredDaemon a = ConfiguredDaemon.start(
                            "HaMultipathGuestTest-A", DocGatewayFiles.gateway("A", IQN, "ha", cluster));
                    ConfiguredDaemon b = ConfiguredDaemon.start(
                            "HaMultipathGuestTest-B", DocGatewayFiles.gateway("B", IQN, "ha", cluster))) {
                int[] kills = {0};
                int[] stalls = {0};
                VmRun run = VmRun.run(
                        "ha-multipath",
                        a.target(IQN).port(),
                        "ha-multipath.sh",
                        Map.of(
                                "IQN",
                                IQN,
                                "PORT2",
                                Integer.toString(b.target(IQN).port()),
                                "FIO_SIZE",
                                Long.toString(FIO_BYTES)),
                        GUEST_LIMIT,
                        request -> switch (request) {
                            case "kill-a" -> {
                                kills[0]++;
                                yield "ok: gateway A killed, exit code " + a.kill();
                            }
                            case "stall-a" -> {
                                stalls[0]++;
                                yield stall(a, STALL);
                            }
                            case "restart-a" -> {
                                a.restart();
                                yield "ok: gateway A restarted";
                            }
                            default -> "error: unknown request " + request;
                        });
                String context = "\n" + run.describe() + "\n" + a.logTail() + "\n" + b.logTail();
                if (Files.exists(run.serialLog())) {
                    Files.copy(
                            run.serialLog(),
                            DaemonProcess.logDir().resolve("HaMultipathGuestTest.serial.log"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
                assertTrue(run.succeeded(), "guest test ha-multipath.sh" + context);
                assertTrue(kills[0] == 1, "gateway A was killed once" + context);
                assertTrue(stalls[0] == 1, "gateway A was stopped once" + context);
                a.assertAlive();
                b.assertAlive();
            }
        }
    }
}
