package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code read-only: true}: libiscsi's ReadOnly suite (WRITE 10/12/16, WRITE SAME with and without UNMAP, UNMAP all
 * refused with DATA PROTECT / WRITE PROTECTED, the WP bit in MODE SENSE) passes instead of skipping, and a raw WRITE
 * gets sense key 7, ASC 0x27. A read-only file LUN opens its file O_RDONLY (every descriptor the daemon has on it) and
 * serves what is in it; a missing file is refused, not created.
 */
@Tag("it")
class ReadOnlyLunTest {
    static final String IQN = IscsiTarget.DEFAULT_IQN;

    @Test
    void writesAreRefusedAndTheSuiteSeesAWriteProtectedUnit() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        String yaml = "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: 64M, read-only: true}\n";
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start("ReadOnlyLunTest", yaml)) {
            IscsiTarget target = daemon.target(IQN);
            CuLogSummary suite = ConformanceRun.runAndAssert(
                    target,
                    "ALL.ReadOnly",
                    daemon::logTail,
                    "ReadOnlyLunTest-iscsi-test-cu.log",
                    "ReadOnlyLunTest-conformance-summary.txt");
            assertEquals(
                    1,
                    suite.count(CuLogSummary.Verdict.PASSED),
                    "ReadOnly.ReadOnlySBC ran and passed: " + suite.results());
            try (TestConnection c = TestConnection.loggedIn(target)) {
                ScsiResult r = RawIo.write(c, 0, ScsiCdb.write10(0, 1), new byte[512], Duration.ofSeconds(30));
                assertEquals(ScsiResult.CHECK_CONDITION, r.status(), "WRITE(10) on a read-only LUN: " + r);
                assertEquals(
                        List.of(7, 0x27, 0),
                        List.of(r.senseKey(), r.asc(), r.ascq()),
                        "DATA PROTECT, WRITE PROTECTED: " + r);
            }
            daemon.assertAlive();
        }
    }

    @Test
    void aReadOnlyFileIsOpenedForReadingOnly() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Path dir = Files.createTempDirectory(DaemonProcess.logDir(), "ReadOnlyLunTest-file-");
        Path file = dir.resolve("image.img");
        byte[] image = new byte[8 << 20];
        new Random(8).nextBytes(image);
        Files.write(file, image);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        String yaml = "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: file, path: " + file + ", size: 8M, read-only: true}\n";
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start("ReadOnlyLunTest-file", yaml);
                TestConnection c = TestConnection.loggedIn(daemon.target(IQN))) {
            RawIo.testUnitReady(c, 0, Duration.ofSeconds(30));
            ScsiResult read = RawIo.read(c, 0, 100, 32, Duration.ofSeconds(30));
            assertEquals(ScsiResult.GOOD, read.status(), "READ(10): " + read + "\n" + daemon.logTail());
            assertArrayEquals(
                    Arrays.copyOfRange(image, 100 * 512, 132 * 512),
                    read.data(),
                    "the file's bytes through the read-only LUN");
            List<String> modes = openModes(daemon.pid(), file);
            assertFalse(modes.isEmpty(), "the daemon has " + file + " open");
            assertTrue(modes.stream().allMatch("O_RDONLY"::equals), "every descriptor on " + file + ": " + modes);
        }

        Path missing = dir.resolve("missing.img");
        ToolRun refused = ConfiguredDaemon.refusedStart(
                "ReadOnlyLunTest-missing", yaml.replace(file.toString(), missing.toString()), Duration.ofSeconds(90));
        assertTrue(
                refused.output()
                        .contains("backing file " + missing + " does not exist; a read-only LUN serves an"
                                + " existing file"),
                refused.describe(20));
        assertFalse(Files.exists(missing), "a read-only LUN created its file");
    }

    /** O_RDONLY, O_WRONLY or O_RDWR for each descriptor process {@code pid} has on {@code file} (its fdinfo flags). */
    private static List<String> openModes(long pid, Path file) throws IOException {
        List<String> modes = new ArrayList<>();
        Path real = file.toRealPath();
        try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                Path target;
                try {
                    target = Files.readSymbolicLink(fd);
                } catch (IOException e) {
                    continue; // closed meanwhile
                }
                if (!target.equals(real)) {
                    continue;
                }
                String flags = Files.readAllLines(Path.of(
                                "/proc",
                                Long.toString(pid),
                                "fdinfo",
                                fd.getFileName().toString()))
                        .stream()
                        .filter(l -> l.startsWith("flags:"))
                        .findFirst()
                        .orElseThrow()
                        .substring("flags:".length())
                        .strip();
                modes.add(List.of("O_RDONLY", "O_WRONLY", "O_RDWR").get(Integer.parseInt(flags, 8) & 3));
            }
        }
        return modes;
    }
}
