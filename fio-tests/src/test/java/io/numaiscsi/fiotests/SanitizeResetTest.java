package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * libiscsi's Sanitize.Reset the way it expects to run, which the whole-suite runs cannot give it: one path (run with
 * two, the Reservations test before it leaves a RESERVE(6) on the second, {@link ConformanceRun#SANITIZE_RESET}), and
 * an OVERWRITE that is still running 3 s after it began. Here the LUN is a null store with 1 ms before each backing
 * operation, so overwriting its 8 GiB in 1 MiB steps takes over 8 s: the test sees SANITIZE IN PROGRESS before and
 * after ABORT TASK, ABORT TASK SET, LUN RESET, TARGET WARM and COLD RESET and a reconnect, and must pass. (Its last
 * step polls once a minute until the sanitize ends, so this takes about 70 s.)
 */
@Tag("it")
@Execution(ExecutionMode.CONCURRENT) // a minute of waiting on one slow null LUN: it runs beside the other classes
class SanitizeResetTest {
    static final String IQN = IscsiTarget.DEFAULT_IQN;

    @Test
    void theResetTestPassesOnOnePathWithAnOverwriteLongerThanItsWait() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        String yaml = "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: null, size: 8G, inject-latency: 1ms}\n";
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start("SanitizeResetTest", yaml)) {
            CuLogSummary suite = ConformanceRun.runAndAssert(
                    daemon.target(IQN),
                    "ALL.Sanitize.Reset",
                    daemon::logTail,
                    "SanitizeResetTest-iscsi-test-cu.log",
                    "SanitizeResetTest-summary.txt",
                    List.of(),
                    1);
            assertEquals(
                    List.of(CuLogSummary.Verdict.PASSED),
                    suite.results().stream()
                            .map(CuLogSummary.TestResult::verdict)
                            .toList(),
                    "Sanitize.Reset ran and passed: " + suite.results());
            daemon.assertAlive();
        }
    }
}
