package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A second daemon pointed at a LUN file another daemon serves refuses to start, naming the file and the daemon that
 * holds it; once that daemon stops, the file can be served again.
 */
@Tag("it")
class ExclusiveBackingTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void aSecondDaemonOnTheSameLunFileRefusesToStartNamingTheFirst() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Path shared = ItDataDirs.newDir("ExclusiveBackingTest").resolve("lun0.img");
        String lun = "targets:\n"
                + "  - name: " + IscsiTarget.DEFAULT_IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: file, path: " + shared + ", size: 8M}\n";
        long firstPid;
        try (ConfiguredDaemon first = ConfiguredDaemon.start("ExclusiveBackingTest-first", lun)) {
            firstPid = first.pid();
            ToolRun second = ConfiguredDaemon.refusedStart("ExclusiveBackingTest-second", lun, LIMIT);
            String expected = "cannot start: backing file " + shared + " is in use by process " + firstPid;
            assertTrue(second.output().contains(expected), "expected \"" + expected + "\"\n" + second.describe(30));
            first.assertAlive();
        }
        try (ConfiguredDaemon again = ConfiguredDaemon.start("ExclusiveBackingTest-again", lun)) {
            again.assertAlive(); // the first daemon's lock went with it
        }
    }
}
