package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code read-only: true}: libiscsi's ReadOnly suite (WRITE 10/12/16, WRITE SAME with and without UNMAP, UNMAP all
 * refused with DATA PROTECT / WRITE PROTECTED, the WP bit in MODE SENSE) passes instead of skipping, and a raw WRITE
 * gets sense key 7, ASC 0x27.
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
            CuLogSummary suite = ConformanceRun.runAndAssert(target, "ALL.ReadOnly", daemon::logTail,
                    "ReadOnlyLunTest-iscsi-test-cu.log", "ReadOnlyLunTest-conformance-summary.txt");
            assertEquals(1, suite.count(CuLogSummary.Verdict.PASSED), "ReadOnly.ReadOnlySBC ran and passed: "
                    + suite.results());
            try (TestConnection c = TestConnection.loggedIn(target)) {
                ScsiResult r = RawIo.write(c, 0, ScsiCdb.write10(0, 1), new byte[512], Duration.ofSeconds(30));
                assertEquals(ScsiResult.CHECK_CONDITION, r.status(), "WRITE(10) on a read-only LUN: " + r);
                assertEquals(java.util.List.of(7, 0x27, 0), java.util.List.of(r.senseKey(), r.asc(), r.ascq()),
                        "DATA PROTECT, WRITE PROTECTED: " + r);
            }
            daemon.assertAlive();
        }
    }
}
