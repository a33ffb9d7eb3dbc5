package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Connections that never finish logging in are bounded: from one address at most limits.logins-per-address (64)
 * may be in login, daemon-wide at most limits.max-logins, and at most max-sessions + max-logins may be open; the
 * rest are closed at once, and the daemon serves again when they go. (HostileInitiatorTest floods from a second
 * address and shows the login timeouts dropping the rest.)
 */
@Tag("it")
class ConnectionLimitTest {
    private static final int MAX_SESSIONS = 1;
    private static final int CAP = MAX_SESSIONS + 64; // max-sessions + max-logins
    private static final int EXTRA = 5;

    @Test
    void connectionsBeyondTheCapAreClosedAndServiceResumes() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .section("limits:\n  max-sessions: " + MAX_SESSIONS + "\n  max-logins: 64\n  logins-per-address: 64\n");
        try (DaemonProcess daemon = DaemonProcess.start("ConnectionLimitTest", setup)) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < CAP + EXTRA; i++) {
                    Socket s = new Socket();
                    s.connect(
                            new InetSocketAddress(
                                    daemon.target().host(), daemon.target().port()),
                            2000);
                    sockets.add(s);
                }
                Thread.sleep(500); // let the target act on every connection
                int closedByTarget = 0;
                int stillOpen = 0;
                for (Socket s : sockets) {
                    s.setSoTimeout(50);
                    try {
                        if (s.getInputStream().read() == -1) {
                            closedByTarget++;
                        }
                    } catch (SocketTimeoutException open) {
                        stillOpen++; // within the cap: it waits for its login
                    }
                }
                // The harness's own readiness probe may still hold a slot, so "at least EXTRA" closed.
                assertTrue(stillOpen <= CAP, stillOpen + " connections held open, cap " + CAP);
                assertTrue(closedByTarget >= EXTRA, closedByTarget + " connections closed, expected at least " + EXTRA);
                assertEquals(CAP + EXTRA, stillOpen + closedByTarget);
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            Thread.sleep(500);
            TestConnection.assertFreshSessionWorks(daemon);
            daemon.assertAlive();
        }
    }
}
