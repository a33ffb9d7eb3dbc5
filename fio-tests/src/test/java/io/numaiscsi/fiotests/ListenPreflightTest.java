package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A busy portal or metrics port stops the start with one line naming the address, before anything listens; a bad
 * {@code --log-level} is a usage error; {@code --log-level debug} turns debug lines on; log lines carry ISO dates.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ListenPreflightTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private Path dir;

    @BeforeAll
    void workDir() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        dir = ItDataDirs.newDir("ListenPreflightTest");
    }

    private ToolRun daemon(String name, int portal, String... more) throws Exception {
        Path config = dir.resolve(name + ".yaml");
        Files.writeString(
                config,
                "daemon:\n  data-dir: " + dir.resolve(name) + "\n"
                        + "portals: [127.0.0.1:" + portal + "]\n"
                        + "targets:\n  - name: " + IscsiTarget.DEFAULT_IQN + "\n"
                        + "    luns: [{id: 0, backing: ram, size: 1M}]\n");
        List<String> args = new ArrayList<>(List.of("--config", config.toString(), "--admin-socket", "off"));
        args.addAll(List.of(more));
        return ToolRun.run(
                DaemonProcess.logDir().resolve("ListenPreflightTest-" + name + ".log"),
                LIMIT,
                DaemonProcess.command("ListenPreflightTest-" + name, args));
    }

    @Test
    void aBusyPortalIsNamedAndNothingListens() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            ToolRun r = daemon("busy-portal", port);
            assertFalse(r.timedOut(), r.describe(20));
            assertEquals(1, r.exitCode(), r.describe(20));
            assertTrue(
                    r.output().contains("cannot start: portal 127.0.0.1:" + port + " cannot be listened on"),
                    r.describe(20));
            assertFalse(r.output().contains("listening on"), "nothing may listen\n" + r.describe(20));
        }
    }

    @Test
    void aBusyMetricsPortStopsTheStartBeforeThePortalListens() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            ToolRun r = daemon("busy-metrics", DaemonProcess.freeLoopbackPort(), "--metrics", "127.0.0.1:" + port);
            assertFalse(r.timedOut(), r.describe(20));
            assertEquals(1, r.exitCode(), r.describe(20));
            assertTrue(
                    r.output().contains("cannot start: --metrics 127.0.0.1:" + port + " cannot be listened on"),
                    r.describe(20));
            assertFalse(r.output().contains("listening on"), "the portal must not listen first\n" + r.describe(20));
        }
    }

    @Test
    void anUnknownLogLevelIsAUsageError() throws Exception {
        ToolRun r = daemon("bad-level", DaemonProcess.freeLoopbackPort(), "--log-level", "loud");
        assertFalse(r.timedOut(), r.describe(20));
        assertEquals(2, r.exitCode(), r.describe(20));
        assertTrue(
                r.output().contains("--log-level loud: not a level (use error, warn, info, debug or trace)"),
                r.describe(20));
    }

    @Test
    void logLevelDebugShowsDebugLinesWithIsoDates() throws Exception {
        String text;
        try (DaemonProcess d = DaemonProcess.start(
                "ListenPreflightTest-debug",
                DaemonProcess.Setup.fileLun(1 << 20).daemonArgs("--log-level", "debug"))) {
            try (Socket s = new Socket(d.target().host(), d.target().port())) {
                s.getOutputStream().flush(); // a connection is logged at debug level
            }
            Thread.sleep(500);
            text = Files.readString(d.log());
        }
        boolean debugLine = false;
        boolean isoLine = false;
        for (String line : text.split("\n")) {
            debugLine |= line.contains(" DEBUG ");
            isoLine |= line.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}([+-]\\d{2}:\\d{2}|Z) .*");
        }
        assertTrue(debugLine, "a DEBUG line in " + text);
        assertTrue(isoLine, "lines start with an ISO 8601 date and zone: " + text);
    }
}
