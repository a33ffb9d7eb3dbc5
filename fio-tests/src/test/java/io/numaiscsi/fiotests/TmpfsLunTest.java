package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A file LUN on tmpfs ({@code /dev/shm}) with the daemon's defaults: on a machine without swap its requests of up to
 * 64 KiB are copied in place on the LUN's thread ({@code TmpfsInlineIo}), larger ones on the backing-io threads.
 * libiscsi's whole suite with nothing FAILED, fio's crc32c verify (128 KiB sequential writes on the threads, 4 KiB
 * random ones in place), and a pattern
 * written through the target with FUA found in the file after kill -9. On a machine with one NUMA node the LUN has no
 * NUMA cache (a second copy of memory with no nearer node).
 */
@Tag("it")
class TmpfsLunTest {
    static final long LUN_BYTES = 512L << 20;
    static final String IQN = IscsiTarget.DEFAULT_IQN;

    @Test
    void theSuiteFioVerifyAndKillNineOnATmpfsFileServedInPlace() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(
                Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type()), "no tmpfs");
        Assumptions.assumeTrue(
                Files.readAllLines(Path.of("/proc/swaps")).size() <= 1,
                "this machine has swap: the daemon keeps tmpfs LUNs on its threads");
        Path file = shm.resolve("numa-iscsi-it-" + ProcessHandle.current().pid() + "-tmpfs-lun.img");
        String test = "TmpfsLunTest";
        String yaml = "targets:\n  - name: " + IQN + "\n    luns:\n      - {id: 0, backing: file, path: " + file
                + ", size: " + LUN_BYTES + "}\n";
        byte[] pattern = new byte[256 * 1024];
        new Random(42).nextBytes(pattern);
        long patternLba = (448L << 20) / 512;
        try {
            try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, yaml)) {
                assertEquals(
                        1,
                        daemon.awaitLogLines(
                                        "LUN 0: its file is on tmpfs and this machine has no swap:"
                                                + " requests of up to 64 KiB are copied in place",
                                        1)
                                .size(),
                        daemon.logTail());
                if (Files.notExists(Path.of("/sys/devices/system/node/node1"))) {
                    assertEquals(
                            1,
                            daemon.awaitLogLines(
                                            "LUN 0: node 0, no NUMA cache: its file is on tmpfs (memory) on a machine"
                                                    + " with one NUMA node",
                                            1)
                                    .size(),
                            daemon.logTail());
                }
                IscsiTarget target = daemon.target(IQN);
                ConformanceRun.runAndAssert(
                        target,
                        "ALL",
                        daemon::logTail,
                        test + "-iscsi-test-cu.log",
                        test + "-conformance-summary.txt",
                        List.of());
                daemon.assertAlive();
                FioVerifyTest.assertVerifies(test, target, 256L << 20, Duration.ofMinutes(5), daemon::logTail);
                try (TestConnection c = TestConnection.loggedIn(target)) {
                    for (int part = 0; part < 4; part++) { // 64 KiB writes with FUA: in place
                        byte[] piece = Arrays.copyOfRange(pattern, part * 65536, (part + 1) * 65536);
                        byte[] cdb = ScsiCdb.write10(patternLba + part * 128L, 128);
                        cdb[1] |= 0x08; // FUA
                        ScsiResult r = RawIo.write(c, 0, cdb, piece, Duration.ofSeconds(30));
                        assertEquals(ScsiResult.GOOD, r.status(), "WRITE(10) FUA: " + r + "\n" + daemon.logTail());
                    }
                }
                assertEquals(137, daemon.kill(), "SIGKILL exit code");
            }
            byte[] inFile = new byte[pattern.length];
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                f.seek(patternLba * 512);
                f.readFully(inFile);
            }
            assertArrayEquals(pattern, inFile, "the FUA writes acknowledged before kill -9, read from " + file);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
