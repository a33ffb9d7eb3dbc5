package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.scsi.LunIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The Linux kernel initiator (open-iscsi, iscsi_tcp) in a qemu guest against the daemon: see
 * {@code fio-tests/vm/guest/ext4-restart.sh} and {@code xfs-postmark.sh} for the guest's steps.
 * Both run on one 1 GiB LUN of one daemon, in this order.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KernelInitiatorTest {

    static final long LUN_BYTES = 1L << 30;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(10);
    static final Duration TOOL_LIMIT = Duration.ofSeconds(30);
    /** SIGKILL-and-restart cycles while the guest holds the disk (-Dit.vm.kills=15 for the long form). */
    static final int KILLS = Integer.getInteger("it.vm.kills", 2);

    private RestartableDaemon daemon;
    private LunIdentity identity;

    @BeforeAll
    void startDaemon() throws Exception {
        VmRun.image(); // fails here, with the build's output, when the image cannot be built
        timing("guest image build-image.sh", VmRun.imageBuildTime());
        daemon = RestartableDaemon.start("KernelInitiatorTest", LUN_BYTES);
        identity = LunIdentity.derive(daemon.target().iqn(), daemon.target().lun(), null);
    }

    @AfterAll
    void stopDaemon() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    @Order(1)
    void ext4FioVerifyTrimAndRestart() throws Exception {
        IscsiTarget t = daemon.target();
        // the host's view of the identity (libiscsi), which the guest's sg_inq/sg_vpd must repeat
        String inquiry = hostInquiry("iscsi-inq-standard.txt", List.of("iscsi-inq", t.lunUrl()));
        // (iscsi-inq takes the page code in decimal: 128 = 0x80)
        String vpd80 = hostInquiry("iscsi-inq-0x80.txt", List.of("iscsi-inq", "-e", "1", "-c", "128", t.lunUrl()));
        assertTrue(
                inquiry.lines().anyMatch(l -> l.equals("Vendor:" + identity.vendor())),
                "host INQUIRY vendor " + identity.vendor() + ":\n" + inquiry);
        assertTrue(
                vpd80.contains("Unit Serial Number:[" + identity.serial() + "]"),
                "host VPD 0x80 serial " + identity.serial() + ":\n" + vpd80);

        Map<String, String> env = Map.of(
                "IQN", t.iqn(),
                "LUN_BYTES", Long.toString(LUN_BYTES),
                "EXPECT_VENDOR", identity.vendor(),
                "EXPECT_PRODUCT", identity.product(),
                "EXPECT_SERIAL", identity.serial(),
                "EXPECT_NAA", String.format("%016x", identity.naaIdentifier()));
        env = new HashMap<>(env);
        env.put("KILLS", Integer.toString(KILLS));
        int[] daemonExitOnRestart = {-1};
        List<Integer> killExits = new ArrayList<>();
        VmRun run = VmRun.run("ext4-restart", t.port(), "ext4-restart.sh", env, GUEST_LIMIT, request -> {
            switch (request) {
                case "restart-daemon":
                    daemonExitOnRestart[0] = daemon.restart();
                    return "ok: daemon stopped with exit code " + daemonExitOnRestart[0] + " and started again on port "
                            + t.port();
                case "kill-daemon":
                    killExits.add(daemon.kill());
                    return "ok: daemon killed (SIGKILL), exit code " + killExits.get(killExits.size() - 1);
                case "start-daemon":
                    daemon.startAgain();
                    return "ok: daemon started again on port " + t.port();
                default:
                    return "error: unknown request " + request;
            }
        });
        timing("guest test ext4-restart.sh", run.elapsed());
        String context = "\n" + run.describe() + "\n" + daemon.logTail();
        saveLogs("KernelInitiatorTest-ext4", run);
        assertTrue(run.succeeded(), "guest test ext4-restart.sh" + context);
        assertEquals(
                1 + KILLS,
                daemon.restarts(),
                "the daemon was restarted once between the two sessions and after each of " + KILLS + " kills"
                        + context);
        assertEquals(KILLS, killExits.size(), "kills" + context);
        // while the daemon was down, each probe was held by run-vm.sh's socat (it retries its connect instead of
        // closing) and got no bytes: the guest's forward-silent-while-down-N checks, part of run.succeeded()
        assertEquals(0, daemonExitOnRestart[0], "daemon exit code on SIGTERM (clean shutdown)" + context);
        String guestSerial = Files.readString(run.out("sg_vpd-0x80.txt"));
        assertTrue(
                guestSerial.contains("Unit serial number: " + identity.serial()),
                "guest sg_vpd -p 0x80 reports the serial the host saw:\n" + guestSerial + "\nhost:\n" + vpd80);
        daemon.assertAlive();
    }

    @Test
    @Order(2)
    void xfsPostmark() throws Exception {
        IscsiTarget t = daemon.target();
        VmRun run = VmRun.run(
                "xfs-postmark",
                t.port(),
                "xfs-postmark.sh",
                Map.of("IQN", t.iqn()),
                GUEST_LIMIT,
                request -> "error: this test asks nothing of the host, got " + request);
        timing("guest test xfs-postmark.sh", run.elapsed());
        String context = "\n" + run.describe() + "\n" + daemon.logTail();
        saveLogs("KernelInitiatorTest-xfs", run);
        Path report = run.out("postmark-report.txt");
        if (Files.exists(report)) {
            Files.copy(
                    report, DaemonProcess.logDir().resolve("postmark-report.txt"), StandardCopyOption.REPLACE_EXISTING);
        }
        assertTrue(run.succeeded(), "guest test xfs-postmark.sh" + context);
        String pm = Files.readString(report);
        assertTrue(pm.contains("seconds of transactions") && pm.contains("files"), "PostMark report:\n" + pm);
        daemon.assertAlive();
    }

    private String hostInquiry(String logName, List<String> cmd) throws IOException, InterruptedException {
        ToolRun run = ToolRun.run(DaemonProcess.logDir().resolve(logName), TOOL_LIMIT, cmd);
        assertEquals(0, run.exitCode(), run.describe(20) + "\n" + daemon.logTail());
        return run.output();
    }

    /** The serial log next to the daemon's log in it-logs/ (the run dir vm-NAME/ stays there too). */
    private static void saveLogs(String name, VmRun run) throws IOException {
        if (Files.exists(run.serialLog())) {
            Files.copy(
                    run.serialLog(),
                    DaemonProcess.logDir().resolve(name + ".serial.log"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void timing(String what, Duration d) throws IOException {
        String line = String.format("%-30s %5d s%n", what, d == null ? -1 : d.toSeconds());
        System.out.print("[KernelInitiatorTest] " + line);
        Files.writeString(
                DaemonProcess.logDir().resolve("vm-timings.txt"),
                line,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
