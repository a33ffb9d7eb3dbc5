package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * libiscsi's conformance suite, all families, destructive tests allowed ({@code -d}); the LUN URL
 * is given twice so the MultipathIO suite runs. Output: {@code it-logs/iscsi-test-cu.log} and the
 * per-suite counts in {@code it-logs/conformance-summary.txt}.
 */
@Tag("it")
class ConformanceTest {

    /** tgtd passes the suite on 1 GiB; smaller LUNs make a few tests skip themselves. */
    static final long LUN_BYTES = 1L << 30;
    static final Duration LIMIT = Duration.ofMinutes(10);

    @Test
    void iscsiTestCuAllSuites() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("ConformanceTest", LUN_BYTES)) {
            Path dir = DaemonProcess.logDir();
            String url = daemon.target().lunUrl();
            ToolRun run = ToolRun.run(dir.resolve("iscsi-test-cu.log"), LIMIT,
                    List.of("iscsi-test-cu", "--test=ALL", "--dataloss", "--verbose", url, url));
            CuLogSummary summary = CuLogSummary.parse(Files.readAllLines(run.log(), StandardCharsets.ISO_8859_1));
            Path summaryFile = dir.resolve("conformance-summary.txt");
            Files.writeString(summaryFile, "iscsi-test-cu against " + url + " ("
                    + (run.timedOut() ? "TIMED OUT" : "exit " + run.exitCode()) + ", "
                    + run.elapsed().toSeconds() + " s)\n" + summary.report());
            String context = "\nsummary: " + summaryFile + "\n" + run.describe(20) + "\n" + daemon.logTail();

            assertFalse(run.timedOut(), "iscsi-test-cu did not finish" + context);
            int[] cunit = summary.cunitTests();
            assertNotNull(cunit, "iscsi-test-cu printed no CUnit run summary (crashed?)" + context);
            assertEquals(cunit[1], summary.results().size(), "tests parsed vs CUnit 'Ran'" + context);
            assertEquals(cunit[3], summary.count(CuLogSummary.Verdict.FAILED), "FAILED parsed vs CUnit" + context);
            List<CuLogSummary.TestResult> failures = summary.failures();
            assertTrue(failures.isEmpty(), failures.size() + " conformance tests FAILED:\n"
                    + failures.stream().map(CuLogSummary.TestResult::toString).collect(Collectors.joining("\n"))
                    + context);
            daemon.assertAlive();
        }
    }
}
