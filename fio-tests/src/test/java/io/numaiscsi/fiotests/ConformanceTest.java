package io.numaiscsi.fiotests;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * libiscsi's conformance suite ({@link ConformanceRun}) against a 1 GiB file LUN without a cache.
 * Output: {@code it-logs/iscsi-test-cu.log} and the per-suite counts in
 * {@code it-logs/conformance-summary.txt}.
 */
@Tag("it")
class ConformanceTest {

    /** tgtd passes the suite on 1 GiB; smaller LUNs make a few tests skip themselves. */
    static final long LUN_BYTES = 1L << 30;

    @Test
    void iscsiTestCuAllSuites() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("ConformanceTest", LUN_BYTES)) {
            ConformanceRun.runAndAssert(daemon, "iscsi-test-cu.log", "conformance-summary.txt");
            daemon.assertAlive();
        }
    }
}
