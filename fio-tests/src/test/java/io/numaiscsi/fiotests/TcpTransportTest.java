package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code daemon.tcp-transport}: Netty's io_uring event loop (with the centralized event model, the only one it works
 * with) and the JDK's NIO selector each serve libiscsi's whole suite and fio's crc32c verify; io_uring with the
 * per-LUN model is refused at start, naming both keys. {@code daemon.event-spin} (epoll threads poll before they
 * block; on by default) serves fio's verify and iscsi-perf with one command in flight.
 */
@Tag("it")
class TcpTransportTest {
    static final long LUN_BYTES = 512L << 20;
    static final String IQN = IscsiTarget.DEFAULT_IQN;

    private static String config(String transport, String model) {
        return "daemon:\n  tcp-transport: " + transport + "\n  event-model: " + model + "\n"
                + "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: " + LUN_BYTES + "}\n";
    }

    @Test
    void ioUringServesTheSuiteAndFio() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        exercise("io_uring", "centralized");
    }

    @Test
    void ioUringWithThePerLunModelIsRefused() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        ToolRun r = ConfiguredDaemon.refusedStart(
                "TcpTransportTest-refused", config("io_uring", "per-lun"), Duration.ofSeconds(90));
        assertTrue(
                r.output().contains("daemon.tcp-transport io_uring needs daemon.event-model: centralized"),
                r.describe(20));
    }

    @Test
    void nioServesTheSuiteAndFio() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        exercise("nio", "per-lun");
    }

    @Test
    void epollWithTheDefaultEventSpinServesFioAndOneCommandInFlight() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        String test = "TcpTransportTest-event-spin";
        // no event-spin or io-poll key: the defaults (50 us, up to 1 ms) are what is tested
        String yaml = config("epoll", "per-lun");
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, yaml)) {
            assertEquals(
                    1,
                    daemon.awaitLogLines(
                                    "event threads poll 50 us before they block while their waits are that short"
                                            + " (daemon.event-spin), and up to 1000 us for their LUNs' io_uring"
                                            + " completions as their recent waits for I/O say (daemon.io-poll)",
                                    1)
                            .size(),
                    "the log says the event threads poll\n" + daemon.logTail());
            IscsiTarget target = daemon.target(IQN);
            FioVerifyTest.assertVerifies(test, target, LUN_BYTES / 2, Duration.ofMinutes(5), daemon::logTail);
            ToolRun perf = ToolRun.run(
                    DaemonProcess.logDir().resolve(test + "-iscsi-perf.log"),
                    Duration.ofSeconds(60),
                    List.of("iscsi-perf", "-m", "1", "-b", "8", "-r", "-t", "3", target.lunUrl()));
            assertEquals(0, perf.exitCode(), perf.describe(20));
            assertTrue(perf.output().contains("iops average"), perf.describe(20));
            daemon.assertAlive();
        }
    }

    private static void exercise(String transport, String model) throws Exception {
        String test = "TcpTransportTest-" + transport;
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(test, config(transport, model))) {
            assertEquals(
                    1,
                    daemon.awaitLogLines("network I/O: " + transport, 1).size(),
                    "the log names the transport\n" + daemon.logTail());
            IscsiTarget target = daemon.target(IQN);
            ConformanceRun.runAndAssert(
                    target, "ALL", daemon::logTail, test + "-iscsi-test-cu.log", test + "-conformance-summary.txt");
            daemon.assertAlive();
            FioVerifyTest.assertVerifies(test, target, LUN_BYTES, Duration.ofMinutes(5), daemon::logTail);
            daemon.assertAlive();
        }
    }
}
