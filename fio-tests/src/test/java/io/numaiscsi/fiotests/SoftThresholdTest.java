package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Thin provisioning soft threshold (SBC-4 4.7.3.7) against a real file system filling up: a sparse 128 MiB LUN file
 * with {@code soft-threshold: 75%} on a 64 MiB tmpfs the test mounts (root). Writes of 36 MiB leave the file system
 * less than a quarter of the LUN's size free, so both sessions that used the LUN get THIN PROVISIONING SOFT THRESHOLD
 * REACHED (06/38/07) once, within the daemon's check period, and LOG SENSE page 0Ch shows the used and available LBA
 * mapping resources in 1 MiB threshold sets (VPD B2h THRESHOLD EXPONENT 11).
 */
@Tag("it")
class SoftThresholdTest {
    static final Duration BOUND = Duration.ofSeconds(10);
    static final long FS_BYTES = 64L << 20;
    static final int CHUNK = 256 << 10;
    static final long WRITTEN = 36L << 20;
    static final int SET_BLOCKS = 2048; // 2^11 blocks of 512 bytes: 1 MiB

    @Test
    void fillingTheFileSystemPostsTheUnitAttentionOnceAndLogSenseShowsTheCounts() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        Path mount = ItDataDirs.newDir("SoftThresholdTest-fs");
        run(List.of("mount", "-t", "tmpfs", "-o", "size=" + FS_BYTES, "tmpfs", mount.toString()));
        try {
            DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                    .lun("{id: 1, backing: file, path: " + mount.resolve("lun1.img")
                            + ", size: 128M, block-size: 512, soft-threshold: 75%}");
            try (DaemonProcess daemon = DaemonProcess.start("SoftThresholdTest", setup);
                    TestConnection a = TestConnection.loggedIn(daemon.target());
                    TestConnection b = TestConnection.loggedIn(daemon.target())) { // another ISID: another I_T nexus
                for (TestConnection c : List.of(a, b)) {
                    assertEquals(
                            ScsiResult.GOOD, RawIo.testUnitReady(c, 1, BOUND).status(), daemon.logTail());
                }
                byte[] vpd = command(a, 1, new byte[] {0x12, 1, (byte) 0xB2, 0, 64, 0}, 64)
                        .data();
                assertEquals(11, vpd[4], "THRESHOLD EXPONENT: 1 MiB sets");
                byte[] before = logSense(a, daemon);
                assertEquals(0, u32(before, 20), "used sets before any write");
                long availableBefore = u32(before, 8);
                assertTrue(availableBefore > 32 && availableBefore <= 64, "available before: " + availableBefore);

                for (long offset = 0; offset < WRITTEN; offset += CHUNK) {
                    ScsiResult w =
                            RawIo.write(a, 1, offset / RawIo.BLOCK, ScsiCdb.pattern(CHUNK, (int) offset), false, BOUND);
                    assertEquals(
                            ScsiResult.GOOD, w.status(), "WRITE at " + offset + ": " + w + "\n" + daemon.logTail());
                }
                ScsiResult ua = awaitUnitAttention(a, daemon);
                assertEquals(0x38, ua.asc(), "THIN PROVISIONING SOFT THRESHOLD REACHED: " + ua);
                assertEquals(0x07, ua.ascq(), ua.toString());
                ScsiResult other = tur(b);
                assertEquals(ScsiResult.CHECK_CONDITION, other.status(), "the other session gets it too: " + other);
                assertEquals(0x3807, other.asc() << 8 | other.ascq(), other.toString());
                for (TestConnection c : List.of(a, b)) {
                    assertEquals(ScsiResult.GOOD, tur(c).status(), "reported once");
                }

                byte[] after = logSense(a, daemon);
                assertEquals(WRITTEN / (SET_BLOCKS * RawIo.BLOCK), u32(after, 20), "used sets after 36 MiB");
                long available = u32(after, 8);
                assertTrue(available <= 32 && available >= 24, "available sets: at most the threshold, " + available);
                assertEquals(0x02, after[12], "available scope: shared with the file system");
                assertEquals(0x01, after[24], "used scope: the LUN's own");
                String log = Files.readString(daemon.log());
                assertTrue(log.contains("thin provisioning soft threshold (75%) reached"), daemon.logTail());
                assertEquals(1, log.split("soft threshold \\(75%\\) reached", -1).length - 1, "one WARN line");
            }
        } finally {
            run(List.of("umount", "-l", mount.toString()));
            Files.deleteIfExists(mount);
        }
    }

    /** TEST UNIT READY until the unit attention arrives: the daemon checks every 2 s. */
    private static ScsiResult awaitUnitAttention(TestConnection c, DaemonProcess daemon) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            ScsiResult r = tur(c);
            if (r.status() == ScsiResult.CHECK_CONDITION) {
                assertEquals(ScsiResult.UNIT_ATTENTION, r.senseKey(), r.toString());
                return r;
            }
            Thread.sleep(200);
        }
        fail("no unit attention within " + BOUND + "\n" + daemon.logTail());
        return null;
    }

    private static ScsiResult tur(TestConnection c) throws IOException {
        return command(c, 1, ScsiCdb.testUnitReady(), 0);
    }

    /** LOG SENSE, page 0Ch, cumulative values. */
    private static byte[] logSense(TestConnection c, DaemonProcess daemon) throws IOException {
        ScsiResult r = command(c, 1, new byte[] {0x4D, 0, 0x4C, 0, 0, 0, 0, 0, 64, 0}, 64);
        assertEquals(ScsiResult.GOOD, r.status(), "LOG SENSE: " + r + "\n" + daemon.logTail());
        assertEquals(28, r.data().length, "page 0Ch: header and two parameters");
        assertEquals(0x0C, r.data()[0]);
        assertEquals(0x0001, u16(r.data(), 4), "available LBA mapping resource count");
        assertEquals(0x0002, u16(r.data(), 16), "used LBA mapping resource count");
        return r.data();
    }

    private static ScsiResult command(TestConnection c, int lun, byte[] cdb, int dataIn) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, cdb, dataIn, dataIn > 0 ? TestConnection.READ_BIT : 0, true));
        return c.awaitStatus(itt, BOUND);
    }

    private static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | b[i + 1] & 0xFF;
    }

    private static long u32(byte[] b, int i) {
        return (long) u16(b, i) << 16 | u16(b, i + 2);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail(String.join(" ", command) + " failed: " + out);
        }
    }
}
