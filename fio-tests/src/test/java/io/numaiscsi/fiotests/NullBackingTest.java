package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code backing: null} through real initiators: a write is acknowledged and a read of it returns zeroes (raw PDUs),
 * and libiscsi's iscsi-perf keeps 32 random 4K reads in flight against it without an error.
 */
@Tag("it")
class NullBackingTest {
    private static final String IQN = "iqn.2026-11.io.numaiscsi:null0";
    private static final Pattern AVERAGE = Pattern.compile("iops average (\\d+)");

    @Test
    void writesAreAcknowledgedReadsReturnZeroesAndIscsiPerfRunsAt32InFlight() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/iscsi-perf")), "needs libiscsi-bin's iscsi-perf");
        try (ConfiguredDaemon d = ConfiguredDaemon.start(
                "NullBackingTest",
                "targets:\n"
                        + "  - name: " + IQN + "\n"
                        + "    luns:\n"
                        + "      - {id: 0, backing: null, size: 1G}\n")) {
            assertEquals(
                    1,
                    d.awaitLogLines("backing null: reads return zeroes and writes are DROPPED", 1)
                            .size(),
                    "the log says the LUN keeps nothing\n" + d.logTail());
            IscsiTarget t = d.target(IQN);
            byte[] ones = new byte[8 * RawBlockIo.BLOCK];
            Arrays.fill(ones, (byte) 1);
            try (RawBlockIo io = RawBlockIo.login(t)) {
                io.write(64, ones, true);
                io.synchronizeCache();
                assertArrayEquals(new byte[ones.length], io.read(64, 8), "a null LUN reads zeroes");
                io.logout();
            }
            ToolRun perf = ToolRun.run(
                    DaemonProcess.logDir().resolve("NullBackingTest-iscsi-perf.log"),
                    Duration.ofSeconds(60),
                    List.of(
                            "/usr/bin/iscsi-perf",
                            "-t",
                            "3",
                            "-m",
                            "32",
                            "-b",
                            "8",
                            "-r",
                            "iscsi://" + t.host() + ":" + t.port() + "/" + IQN + "/0"));
            assertFalse(perf.timedOut(), perf.describe(20));
            assertEquals(0, perf.exitCode(), perf.describe(20));
            Matcher m = AVERAGE.matcher(perf.output());
            long last = -1;
            while (m.find()) {
                last = Long.parseLong(m.group(1));
            }
            assertTrue(last > 0, "iscsi-perf reports an average rate\n" + perf.describe(20));
            assertFalse(perf.output().toLowerCase().contains("failed"), perf.describe(20));
            d.assertAlive();
        }
    }
}
