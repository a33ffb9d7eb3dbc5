package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
 * A full disk gives a SCSI error, not a hang: WRITEs that the backing file cannot take end with CHECK CONDITION, DATA
 * PROTECT, SPACE ALLOCATION FAILED WRITE PROTECT (SBC-3 4.7.3.6, 07/27/07), within a bound, while reads and other LUNs
 * keep working. Two ways to fill it: a real ENOSPC (a sparse 16 MiB LUN file on a 4 MiB tmpfs the test mounts; needs
 * root), and the test-only {@code inject-no-space-after} LUN key on a RAM LUN. After an UNMAP frees space on the tmpfs,
 * writes succeed again.
 */
@Tag("it")
class FullDiskTest {
    static final Duration BOUND = Duration.ofSeconds(10);
    static final int CHUNK = 8192;
    static final long FS_BYTES = 4L << 20;
    static final long LUN_BYTES = 16L << 20;
    static final int DATA_PROTECT = 0x7;

    @Test
    void realEnospcOnATmpfsBackingFile() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        Path mount = ItDataDirs.newDir("FullDiskTest-fs");
        run(List.of("mount", "-t", "tmpfs", "-o", "size=" + FS_BYTES, "tmpfs", mount.toString()));
        try {
            DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                    .lun("{id: 1, backing: file, path: " + mount.resolve("lun1.img") + ", size: 16M, block-size: 512}");
            try (DaemonProcess daemon = DaemonProcess.start("FullDiskTest-tmpfs", setup)) {
                try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                    long acked = fillUntilFull(c, daemon, 1, LUN_BYTES);
                    assertTrue(
                            acked > FS_BYTES / 2 && acked <= FS_BYTES,
                            "accepted " + acked + " bytes on a " + FS_BYTES + "-byte file system");
                    readsStillWork(c, daemon, 1);
                    // free the first MiB (hole punch) and the disk takes writes again
                    ScsiResult u = unmap(c, 1, 0, (1 << 20) / RawIo.BLOCK);
                    assertEquals(ScsiResult.GOOD, u.status(), "UNMAP " + u + "\n" + daemon.logTail());
                    byte[] data = ScsiCdb.pattern(CHUNK, 77);
                    ScsiResult w = RawIo.write(c, 1, 0, data, true, BOUND);
                    assertEquals(
                            ScsiResult.GOOD, w.status(), "WRITE after space was freed: " + w + "\n" + daemon.logTail());
                }
                TestConnection.assertFreshSessionWorks(daemon);
            }
        } finally {
            run(List.of("umount", "-l", mount.toString()));
            Files.deleteIfExists(mount);
        }
    }

    @Test
    void injectedNoSpaceOnARamLun() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .lun("{id: 1, backing: ram, size: 16M, block-size: 512, inject-no-space-after: 1M}");
        try (DaemonProcess daemon = DaemonProcess.start("FullDiskTest-injected", setup)) {
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                long acked = fillUntilFull(c, daemon, 1, LUN_BYTES);
                assertEquals(1L << 20, acked, "bytes accepted before the injected ENOSPC");
                readsStillWork(c, daemon, 1);
            }
            TestConnection.assertFreshSessionWorks(daemon);
        }
    }

    /** Sequential FUA writes until the first failure, which must be the space allocation error; returns bytes acked. */
    private static long fillUntilFull(TestConnection c, DaemonProcess daemon, int lun, long lunBytes)
            throws IOException {
        long acked = 0;
        for (long offset = 0; offset < lunBytes; offset += CHUNK) {
            byte[] data = ScsiCdb.pattern(CHUNK, (int) (offset / CHUNK));
            long t0 = System.nanoTime();
            ScsiResult r = RawIo.write(c, lun, offset / RawIo.BLOCK, data, true, BOUND);
            assertTrue(System.nanoTime() - t0 < BOUND.toNanos(), "a WRITE on the full disk hung");
            if (r.status() == ScsiResult.GOOD) {
                acked += CHUNK;
                continue;
            }
            assertEquals(
                    ScsiResult.CHECK_CONDITION, r.status(), "status on a full disk: " + r + "\n" + daemon.logTail());
            assertEquals(DATA_PROTECT, r.senseKey(), "sense key on a full disk: " + r);
            assertEquals(0x27, r.asc(), "ASC on a full disk: " + r);
            assertEquals(0x07, r.ascq(), "ASCQ (SPACE ALLOCATION FAILED WRITE PROTECT): " + r);
            // the next write fails the same way, promptly
            ScsiResult again = RawIo.write(c, lun, offset / RawIo.BLOCK, data, false, BOUND);
            assertEquals(ScsiResult.CHECK_CONDITION, again.status(), "second write on a full disk: " + again);
            return acked;
        }
        fail("a " + lunBytes + "-byte LUN never ran out of space");
        return acked;
    }

    private static void readsStillWork(TestConnection c, DaemonProcess daemon, int lun) throws IOException {
        ScsiResult r = RawIo.read(c, lun, 0, CHUNK / RawIo.BLOCK, BOUND);
        assertEquals(ScsiResult.GOOD, r.status(), "READ on a full disk: " + r + "\n" + daemon.logTail());
        assertArrayEquals(ScsiCdb.pattern(CHUNK, 0), r.data(), "data written before the disk filled");
        ScsiResult other = RawIo.read(c, 0, 0, 8, BOUND);
        assertEquals(ScsiResult.GOOD, other.status(), "READ on LUN 0: " + other);
    }

    /** UNMAP (SBC-3 5.28) of one LBA range. */
    private static ScsiResult unmap(TestConnection c, int lun, long lba, int blocks) throws IOException {
        byte[] param = new byte[24];
        param[1] = 22; // UNMAP data length (n - 1)
        param[3] = 16; // block descriptor data length
        for (int i = 0; i < 8; i++) {
            param[8 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        param[16] = (byte) (blocks >>> 24);
        param[17] = (byte) (blocks >>> 16);
        param[18] = (byte) (blocks >>> 8);
        param[19] = (byte) blocks;
        byte[] cdb = new byte[10];
        cdb[0] = 0x42;
        cdb[8] = (byte) param.length;
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, cdb, param.length, TestConnection.WRITE_BIT, true)
                .data(param));
        return c.awaitStatus(itt, BOUND);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail(String.join(" ", command) + " failed: " + out);
        }
    }
}
