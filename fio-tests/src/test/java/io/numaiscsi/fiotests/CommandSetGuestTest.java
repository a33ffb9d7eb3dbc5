package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The command set as the Linux kernel initiator and sg3-utils use it (qemu guest, {@code vm/guest/command-set.sh}):
 * a read-only LUN holding an ext4 file system the host made mounts read-only with its file intact and refuses a
 * WRITE with DATA PROTECT; {@code sg_xcopy} copies LUN 0 to LUN 1 with EXTENDED COPY, the data checked; a
 * reservation {@code sg_persist} made with APTPL survives a restart of the daemon: another initiator's WRITE then
 * gets RESERVATION CONFLICT (checked here, over a raw session of a different initiator name), and so does the guest's
 * new session, a new initiator port (open-iscsi's ISID ends in the session number), until it registers and preempts
 * the old port; then it holds the reservation and writes.
 */
@Tag("it")
class CommandSetGuestTest {
    static final long LUN_BYTES = 64L << 20;
    static final long RO_BYTES = 32L << 20;
    static final long COPY_BYTES = 8L << 20;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(10);
    static final Duration ANSWER = Duration.ofSeconds(30);
    static final int RESERVATION_CONFLICT = 0x18;

    @Test
    void readOnlyMountXcopyAndReservationsAcrossARestart() throws Exception {
        VmRun.image();
        Path dir = Files.createTempDirectory(DaemonProcess.logDir(), "CommandSetGuestTest-");
        byte[] file = new byte[1 << 20];
        new Random(18).nextBytes(file);
        Path tree = Files.createDirectories(dir.resolve("tree/data"));
        Files.write(tree.resolve("file"), file);
        Path image = dir.resolve("ro.img");
        ToolRun mkfs = LoopDevice.tool(
                "CommandSetGuestTest-mkfs.log",
                List.of(
                        "mkfs.ext4",
                        "-q",
                        "-F",
                        "-d",
                        tree.getParent().toString(),
                        image.toString(),
                        (RO_BYTES >> 20) + "M"));
        assertEquals(0, mkfs.exitCode(), "mkfs.ext4 -d of the read-only LUN's image\n" + mkfs.describe(10));

        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(LUN_BYTES)
                .lun("{id: 1, backing: file, path: lun1.img, size: " + DaemonProcess.sizeLiteral(LUN_BYTES)
                        + ", block-size: 512}")
                .lun("{id: 2, backing: file, path: " + image + ", size: " + DaemonProcess.sizeLiteral(RO_BYTES)
                        + ", block-size: 512, read-only: true}");
        try (RestartableDaemon daemon = RestartableDaemon.start("CommandSetGuestTest", setup)) {
            IscsiTarget t = daemon.target();
            IscsiTarget lun1 = new IscsiTarget(t.host(), t.port(), t.iqn(), 1);
            Map<String, String> env = Map.of(
                    "IQN", t.iqn(),
                    "RO_SHA256",
                            HexFormat.of()
                                    .formatHex(
                                            MessageDigest.getInstance("SHA-256").digest(file)),
                    "COPY_BYTES", Long.toString(COPY_BYTES));
            ScsiResult[] conflict = {null};
            VmRun run = VmRun.run("command-set", t.port(), "command-set.sh", env, GUEST_LIMIT, request -> {
                switch (request) {
                    case "restart-daemon":
                        return "ok: daemon stopped with exit code " + daemon.restart();
                    case "check-reservation":
                        ScsiResult r = unregisteredWrite(lun1);
                        conflict[0] = r;
                        return r.status() == RESERVATION_CONFLICT ? "ok: RESERVATION CONFLICT" : "error: " + r;
                    default:
                        return "error: unknown request " + request;
                }
            });
            String context = "\n" + run.describe() + "\n" + daemon.logTail();
            if (Files.exists(run.serialLog())) {
                Files.copy(
                        run.serialLog(),
                        DaemonProcess.logDir().resolve("CommandSetGuestTest.serial.log"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
            assertTrue(run.succeeded(), "guest test command-set.sh" + context);
            assertEquals(1, daemon.restarts(), "the daemon was restarted once" + context);
            assertTrue(
                    conflict[0] != null && conflict[0].status() == RESERVATION_CONFLICT,
                    "after the restart another initiator's WRITE met the reservation: " + conflict[0] + context);
            daemon.assertAlive();
        }
    }

    /** A WRITE(10) to LUN 1 from an initiator that never registered (the raw test session's own name). */
    private static ScsiResult unregisteredWrite(IscsiTarget lun1) throws Exception {
        try (TestConnection c = TestConnection.loggedIn(lun1)) {
            RawIo.testUnitReady(c, 1, ANSWER);
            return RawIo.write(c, 1, ScsiCdb.write10(0, 1), new byte[512], ANSWER);
        }
    }
}
