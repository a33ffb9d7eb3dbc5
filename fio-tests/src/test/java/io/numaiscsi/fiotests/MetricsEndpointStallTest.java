package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link #STALLED} clients connect to the daemon's metrics port and send half a request line, nothing more. Beside
 * them an honest scrape is answered and a fresh iSCSI session works; the daemon closes each stalled client within its
 * request timeout (5 s) plus slack, and its file descriptors (/proc) are back at the baseline afterwards. The figures
 * go to {@code it-logs/MetricsEndpointStallTest-figures.txt}.
 */
@Tag("it")
class MetricsEndpointStallTest {
    static final int STALLED = 50;
    /** The endpoint's request timeout (MetricsLimits.DEFAULT in the daemon). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    static final Duration SLACK = Duration.ofSeconds(5);

    @Test
    void stalledMetricsClientsBlockNeitherScrapesNorSessions() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup =
                DaemonProcess.Setup.fileLun(16L << 20).daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        try (DaemonProcess daemon = DaemonProcess.start("MetricsEndpointStallTest", setup)) {
            awaitEndpoint(daemon, metricsPort);
            // warm-up: lazily started threads and the first scrape's meters exist before the baseline
            TestConnection.assertFreshSessionWorks(daemon);
            PromText.fetch(metricsPort);
            Thread.sleep(1000);
            RawIo.ProcStats before = RawIo.ProcStats.of(daemon.pid());

            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < STALLED; i++) {
                    Socket s = new Socket();
                    stalled.add(s);
                    s.connect(new InetSocketAddress("127.0.0.1", metricsPort), 2000);
                    s.getOutputStream().write("GET /metr".getBytes(StandardCharsets.US_ASCII));
                }
                long lastOpened = System.nanoTime();

                long scrapeStart = System.nanoTime();
                PromText honest = PromText.fetch(metricsPort);
                long scrapeMillis = (System.nanoTime() - scrapeStart) / 1_000_000;
                assertTrue(
                        honest.has("iscsi_sessions"), "an honest scrape beside the stalled clients:\n" + honest.text());
                TestConnection.assertFreshSessionWorks(daemon);
                // taken after the scrape and the session: the stalled clients were still held while those ran
                RawIo.ProcStats during = RawIo.ProcStats.of(daemon.pid());

                long closeDeadline = lastOpened + REQUEST_TIMEOUT.plus(SLACK).toNanos();
                int closedByDaemon = 0;
                for (Socket s : stalled) {
                    if (closedBy(s, closeDeadline)) {
                        closedByDaemon++;
                    }
                }
                long lastClosedMillis = (System.nanoTime() - lastOpened) / 1_000_000;

                RawIo.ProcStats after = settle(daemon, before);
                String figures = String.format(
                        "%d stalled metrics clients; honest scrape beside them in %d ms; "
                                + "%d closed by the daemon, the last seen %d ms after the last one opened; "
                                + "before: %s; during: %s; after: %s%n",
                        STALLED, scrapeMillis, closedByDaemon, lastClosedMillis, before, during, after);
                Files.writeString(DaemonProcess.logDir().resolve("MetricsEndpointStallTest-figures.txt"), figures);
                System.out.print("MetricsEndpointStallTest: " + figures);
                assertTrue(during.fds() >= before.fds() + STALLED, "the stalled clients were not held: " + figures);
                assertTrue(
                        closedByDaemon == STALLED,
                        "stalled clients left open past the request timeout + " + SLACK.toSeconds() + " s: " + figures
                                + daemon.logTail());
                assertTrue(after.fds() <= before.fds() + 4, "file descriptors leaked: " + figures + daemon.logTail());
                PromText.fetch(metricsPort);
                TestConnection.assertFreshSessionWorks(daemon);
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
            }
        }
    }

    /** The metrics endpoint starts after the portal the harness waits for. */
    private static void awaitEndpoint(DaemonProcess daemon, int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                daemon.assertAlive();
                if (System.nanoTime() > deadline) {
                    fail("metrics port " + port + " not open within 30 s\n" + daemon.logTail());
                }
                Thread.sleep(100);
            }
        }
    }

    /** Whether the daemon closed {@code s} (end of stream or reset) by {@code deadline}, without an answer. */
    private static boolean closedBy(Socket s, long deadline) throws IOException {
        s.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        try {
            int b = s.getInputStream().read();
            if (b != -1) {
                fail("a stalled client got an answer to half a request line");
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** /proc figures once closed connections are reaped: waits (up to 15 s) until the fd count is back at ref's. */
    private static RawIo.ProcStats settle(DaemonProcess daemon, RawIo.ProcStats ref) throws Exception {
        RawIo.ProcStats s = RawIo.ProcStats.of(daemon.pid());
        for (int i = 0; i < 30 && s.fds() > ref.fds(); i++) {
            Thread.sleep(500);
            s = RawIo.ProcStats.of(daemon.pid());
        }
        return s;
    }
}
