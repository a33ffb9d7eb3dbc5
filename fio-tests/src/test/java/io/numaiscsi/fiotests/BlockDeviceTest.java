package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code backing: block} over loop devices: files on tmpfs ({@code /dev/shm}) and on the build's disk, with 512- and
 * 4096-byte logical blocks. Per device: libiscsi's whole suite with nothing FAILED, fio's crc32c verify through the
 * target, and a pattern written through the target read back byte for byte from the device once the daemon stopped.
 * Also: a second daemon on a device the first holds refuses to start, and so does one on a mounted device; a device
 * set read-only serves a read-only LUN. Needs root and losetup (skipped without); every loop device is detached in
 * finally.
 *
 * <p>Loop devices report their physical block equal to their logical one; the 512-byte LUNs are configured with a
 * 4096-byte physical block ({@code physical-block-size}, "512e"), so libiscsi's LBPPB tests run on them and must pass.
 * There libiscsi's GetLBAStatus.UnmapSingle fails by its own defect, the only failure accepted ({@link #LBPPB_DEFECT}):
 * after unmapping LBAs 0..i-1 it asks for LBA i+1 and wants the first descriptor to start at i+LBPPB, where SBC-3 has
 * it start at the LBA asked for (with one logical block per physical block the two coincide).
 *
 * <p>CI runs two of the four devices, crosswise (tmpfs with 512-byte blocks, disk with 4096); {@code -Dit.block.all=true}
 * runs all four (about 40 s each).
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BlockDeviceTest {
    static final long DEVICE_BYTES = 1L << 30;
    /** fio's sequential job covers this much; its random job stays inside it. */
    static final long FIO_BYTES = 512L << 20;

    static final Duration FIO_LIMIT = Duration.ofMinutes(8);
    static final String IQN = IscsiTarget.DEFAULT_IQN;
    /** The physical block the 512-byte LUNs report. */
    static final int EMULATED_PHYSICAL = 4096;

    static final ConformanceRun.KnownDefect LBPPB_DEFECT = new ConformanceRun.KnownDefect(
            "GetLBAStatus",
            "UnmapSingle",
            "lba offset in first descriptor does not",
            "asks for LBA i+1, expects the descriptor at i+LBPPB; SBC-3 starts it at the LBA asked for");
    /** libiscsi's tests that skip unless a physical block holds more than one logical block. */
    static final boolean ALL_DEVICES = Boolean.getBoolean("it.block.all");

    static final List<String> LBPPB_TESTS = List.of(
            "CompareAndWrite.InvalidDataOutSize",
            "WriteSame10.UnmapUnaligned",
            "WriteSame10.InvalidDataOutSize",
            "WriteSame16.UnmapUnaligned",
            "WriteSame16.InvalidDataOutSize");

    @BeforeAll
    void needsRootAndLosetup() {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "attaching loop devices needs root");
        Assumptions.assumeTrue(LoopDevice.losetup() != null, "losetup is not installed");
    }

    private static Path onDisk(String name) {
        return DaemonProcess.logDir().resolveSibling("it-loop").resolve(name);
    }

    private static Path onTmpfs(String name) {
        return Path.of("/dev/shm", "numa-iscsi-it-" + ProcessHandle.current().pid() + "-" + name);
    }

    private static String config(Path device) {
        return config(device, 0);
    }

    private static String config(Path device, int physicalBlockSize) {
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: block, path: " + device
                + (physicalBlockSize == 0 ? "" : ", physical-block-size: " + physicalBlockSize) + "}\n";
    }

    @Test
    void tmpfs512() throws Exception {
        exercise("tmpfs-512", onTmpfs("512.img"), 512);
    }

    @Test
    void tmpfs4096() throws Exception {
        Assumptions.assumeTrue(ALL_DEVICES, "-Dit.block.all=true: CI runs tmpfs512 and disk4096");
        exercise("tmpfs-4096", onTmpfs("4096.img"), 4096);
    }

    @Test
    void disk512() throws Exception {
        Assumptions.assumeTrue(ALL_DEVICES, "-Dit.block.all=true: CI runs tmpfs512 and disk4096");
        exercise("disk-512", onDisk("512.img"), 512);
    }

    @Test
    void disk4096() throws Exception {
        exercise("disk-4096", onDisk("4096.img"), 4096);
    }

    private void exercise(String name, Path file, int sectorSize) throws Exception {
        String test = "BlockDeviceTest-" + name;
        try (LoopDevice loop = LoopDevice.attach(file, DEVICE_BYTES, sectorSize, test + "-losetup.log")) {
            Files.writeString(DaemonProcess.logDir().resolve(test + "-device.txt"), loop + "\n");
            assertEquals(sectorSize, loop.logicalBlockSize(), "blockdev --getss " + loop);
            int bs = loop.logicalBlockSize();
            byte[] pattern = new byte[1 << 20];
            new Random(sectorSize).nextBytes(pattern);
            long patternLba = (768L << 20) / bs;
            boolean emulated = bs < EMULATED_PHYSICAL;
            String yaml = config(loop.device(), emulated ? EMULATED_PHYSICAL : 0);
            try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, yaml)) {
                IscsiTarget target = daemon.target(IQN);
                List<String> opened = daemon.awaitLogLines(
                        "block device of " + DEVICE_BYTES + " bytes, logical block " + bs + ", physical block "
                                + loop.physicalBlockSize(),
                        1);
                assertEquals(1, opened.size(), "the daemon logs what it read from " + loop + "\n" + daemon.logTail());
                int physical = emulated ? EMULATED_PHYSICAL : loop.physicalBlockSize();
                assertEquals(
                        1,
                        daemon.awaitLogLines("block size " + bs + ", physical block " + physical, 1)
                                .size(),
                        "the LUN reports a " + physical + "-byte physical block\n" + daemon.logTail());

                JsonNode lun = new ObjectMapper()
                        .readTree(new AdminCliRun(test, daemon.dataDir().resolve("admin.sock")).ok("--json", "ls"))
                        .path("targets")
                        .path(0)
                        .path("luns")
                        .path(0);
                assertEquals(
                        List.of(DEVICE_BYTES, (long) bs, (long) physical),
                        List.of(
                                lun.path("size").asLong(),
                                lun.path("block_size").asLong(),
                                lun.path("physical_block_size").asLong()),
                        "lun.list shows the device's size and blocks as served: " + lun);

                CuLogSummary suite = ConformanceRun.runAndAssert(
                        target,
                        "ALL",
                        daemon::logTail,
                        test + "-iscsi-test-cu.log",
                        test + "-conformance-summary.txt",
                        List.of(LBPPB_DEFECT));
                if (emulated) {
                    for (String lbppbTest : LBPPB_TESTS) {
                        assertEquals(
                                List.of(CuLogSummary.Verdict.PASSED),
                                suite.results().stream()
                                        .filter(r -> (r.suite() + "." + r.test()).equals(lbppbTest))
                                        .map(CuLogSummary.TestResult::verdict)
                                        .toList(),
                                lbppbTest + " runs and passes");
                    }
                }
                daemon.assertAlive();
                fioVerify(test, target, daemon);
                try (TestConnection c = TestConnection.loggedIn(target)) {
                    ScsiResult r = RawIo.write(
                            c, 0, ScsiCdb.write10(patternLba, pattern.length / bs), pattern, Duration.ofSeconds(30));
                    assertEquals(
                            ScsiResult.GOOD, r.status(), "WRITE(10) of the pattern: " + r + "\n" + daemon.logTail());
                }
                secondDaemonIsRefused(test, loop);
                daemon.assertAlive();
            }
            byte[] onDevice = new byte[pattern.length];
            try (RandomAccessFile dev = new RandomAccessFile(loop.device().toFile(), "r")) {
                dev.seek(patternLba * bs);
                dev.readFully(onDevice);
            }
            assertArrayEquals(pattern, onDevice, "what the target wrote, read from " + loop.device());
        }
    }

    private static void fioVerify(String test, IscsiTarget target, ConfiguredDaemon daemon) throws Exception {
        FioVerifyTest.assertVerifies(test, target, FIO_BYTES, FIO_LIMIT, daemon::logTail);
    }

    /** O_EXCL: a second daemon cannot take the device the first holds, and says why. */
    private static void secondDaemonIsRefused(String test, LoopDevice loop) throws Exception {
        ToolRun r = ConfiguredDaemon.refusedStart(test + "-second", config(loop.device()), Duration.ofSeconds(90));
        String out = r.output();
        assertTrue(
                out.contains("block device " + loop.device() + " is in use (mounted, or held by another process or"
                        + " device-mapper)"),
                "second daemon's refusal\n" + r.describe(30));
    }

    /**
     * A device set read-only ({@code blockdev --setro}) cannot be opened for writing: a LUN without {@code read-only}
     * is refused naming the cause, a read-only LUN opens it O_RDONLY and serves what is on it, and a write gets DATA
     * PROTECT.
     */
    @Test
    void aReadOnlyDeviceServesAReadOnlyLun() throws Exception {
        String test = "BlockDeviceTest-read-only";
        try (LoopDevice loop = LoopDevice.attach(onTmpfs("read-only.img"), 64L << 20, 512, test + "-losetup.log")) {
            byte[] pattern = new byte[64 * 512];
            new Random(64).nextBytes(pattern);
            long lba = 2048;
            try (RandomAccessFile dev = new RandomAccessFile(loop.device().toFile(), "rw")) {
                dev.seek(lba * 512);
                dev.write(pattern);
                dev.getFD().sync();
            }
            // the flag stays on the loop device after it is detached: cleared in finally
            try {
                ToolRun setro = LoopDevice.tool(
                        test + "-setro.log",
                        List.of("blockdev", "--setro", loop.device().toString()));
                assertEquals(0, setro.exitCode(), setro.describe(10));
                servedReadOnly(test, loop, lba, pattern);
            } finally {
                LoopDevice.tool(
                        test + "-setrw.log",
                        List.of("blockdev", "--setrw", loop.device().toString()));
            }
        }
    }

    private static void servedReadOnly(String test, LoopDevice loop, long lba, byte[] pattern) throws Exception {
        ToolRun refused =
                ConfiguredDaemon.refusedStart(test + "-writable", config(loop.device()), Duration.ofSeconds(90));
        assertTrue(
                refused.output().contains("block device " + loop.device() + " is read-only"),
                "a writable LUN on a read-only device names the cause\n" + refused.describe(30));

        String yaml = config(loop.device()).replace("}\n", ", read-only: true}\n");
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, yaml);
                TestConnection c = TestConnection.loggedIn(daemon.target(IQN))) {
            RawIo.testUnitReady(c, 0, Duration.ofSeconds(30));
            ScsiResult read = RawIo.read(c, 0, lba, pattern.length / 512, Duration.ofSeconds(30));
            assertEquals(ScsiResult.GOOD, read.status(), "READ(10): " + read + "\n" + daemon.logTail());
            assertArrayEquals(pattern, read.data(), "what is on the device, read through the read-only LUN");
            ScsiResult write = RawIo.write(c, 0, ScsiCdb.write10(lba, 1), new byte[512], Duration.ofSeconds(30));
            assertEquals(
                    List.of(ScsiResult.CHECK_CONDITION, 7, 0x27),
                    List.of(write.status(), write.senseKey(), write.asc()),
                    "WRITE(10) on the read-only LUN: DATA PROTECT, WRITE PROTECTED: " + write);
            daemon.assertAlive();
        }
    }

    @Test
    void aMountedDeviceIsRefused() throws Exception {
        String test = "BlockDeviceTest-mounted";
        try (LoopDevice loop = LoopDevice.attach(onTmpfs("mounted.img"), 64L << 20, 512, test + "-losetup.log")) {
            ToolRun mkfs = LoopDevice.tool(
                    test + "-mkfs.log", List.of("mkfs.ext4", "-q", loop.device().toString()));
            Assumptions.assumeTrue(mkfs.exitCode() == 0, "mkfs.ext4 not available: " + mkfs.describe(5));
            Path mountPoint = Files.createDirectories(
                    onDisk("mnt-" + ProcessHandle.current().pid()));
            ToolRun mount = LoopDevice.tool(
                    test + "-mount.log", List.of("mount", loop.device().toString(), mountPoint.toString()));
            Assumptions.assumeTrue(mount.exitCode() == 0, "cannot mount here: " + mount.describe(5));
            try {
                ToolRun r = ConfiguredDaemon.refusedStart(test, config(loop.device()), Duration.ofSeconds(90));
                assertTrue(
                        r.output()
                                .contains("block device " + loop.device() + " is in use (mounted, or held by "
                                        + "another process or device-mapper): mounted on " + mountPoint),
                        "refusal naming the mount point\n" + r.describe(30));
            } finally {
                LoopDevice.tool(test + "-umount.log", List.of("umount", mountPoint.toString()));
                Files.deleteIfExists(mountPoint);
            }
        }
    }
}
