package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Portals and the discovery CHAP changed through numa-iscsi-admin: a portal added on a free loopback port serves
 * logins and SendTargets reports it; removed, it takes no new connection while the session that came through it goes
 * on; a busy port and the last portal are refused. Discovery CHAP set live refuses an anonymous discovery and admits
 * the user; {@code save} writes the portals and the discovery CHAP to the config file.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdminPortalsChapTest {
    static final String NAME = "AdminPortalsChapTest";
    static final Duration LIMIT = Duration.ofSeconds(60);
    static final String DISCOVERY_USER = "discoverer";
    static final String DISCOVERY_SECRET = "discovery-secret-live-1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private DaemonProcess daemon;
    private Path socket;
    private AdminCliRun cli;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        daemon = DaemonProcess.start(NAME, DaemonProcess.Setup.fileLun(16L << 20));
        socket = daemon.dataDir().resolve("admin.sock");
        cli = new AdminCliRun(NAME, socket);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
            assertFalse(
                    Files.readString(daemon.log(), StandardCharsets.ISO_8859_1).contains(DISCOVERY_SECRET),
                    "the discovery secret is in the daemon log");
        }
    }

    private ToolRun admin(String... args) throws Exception {
        return cli.run(args);
    }

    private String ok(ToolRun r) throws IOException {
        assertEquals(0, r.exitCode(), r.describe(20) + "\n" + daemon.logTail());
        return r.output();
    }

    private static void refused(ToolRun r, String... phrases) throws IOException {
        assertEquals(1, r.exitCode(), r.describe(20));
        for (String p : phrases) {
            assertTrue(r.output().contains(p), "\"" + p + "\" in: " + r.output());
        }
    }

    private ToolRun tool(String name, String... command) throws Exception {
        return ToolRun.run(DaemonProcess.logDir().resolve(NAME + "-" + name + ".log"), LIMIT, List.of(command));
    }

    private List<String> portalList() throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode p : JSON.readTree(ok(admin("--json", "portal-list")))) {
            out.add(p.path("address").asText() + " " + p.path("transport").asText() + " "
                    + p.path("port").asInt());
        }
        return out;
    }

    private IscsiTarget at(int port) {
        IscsiTarget t = daemon.target();
        return new IscsiTarget("127.0.0.1", port, t.iqn(), 0);
    }

    @Test
    @Order(1)
    void aPortalAddedServesAndIsDiscoveredThenRemovedWhileItsSessionGoesOn() throws Exception {
        int first = daemon.target().port();
        int added = DaemonProcess.freeLoopbackPort();
        assertTrue(ok(admin("portal-add", "127.0.0.1:" + added)).contains("listening on 127.0.0.1:" + added));
        assertEquals(
                List.of("127.0.0.1:" + first + " tcp " + first, "127.0.0.1:" + added + " tcp " + added), portalList());

        ToolRun ls = tool("ls-two-portals", "iscsi-ls", daemon.target().portalUrl());
        assertEquals(0, ls.exitCode(), ls.describe(20));
        assertTrue(
                ls.output().contains("Portal:127.0.0.1:" + added),
                "SendTargets reports the new portal\n" + ls.describe(20));
        refused(admin("portal-add", "127.0.0.1:" + added), "duplicate portal 127.0.0.1:" + added);

        try (TestConnection c = TestConnection.loggedIn(at(added))) {
            byte[] data = ScsiCdb.pattern(4096, 7);
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 0, 16, data).status(), "WRITE through the added portal");

            String removed = ok(admin("portal-remove", "127.0.0.1:" + added));
            assertTrue(
                    removed.contains("stopped listening on 127.0.0.1:" + added + "; 1 connection(s) through it go on"),
                    removed);
            assertThrows(IOException.class, () -> TestConnection.open(at(added)).close(), "no new connection there");
            assertArrayEquals(
                    data,
                    LunChecks.command(c, 0, ScsiCdb.read10(16, 8), 4096).data(),
                    "the session through the removed portal goes on");
        }
        assertEquals(List.of("127.0.0.1:" + first + " tcp " + first), portalList());
        ToolRun after = tool("ls-one-portal", "iscsi-ls", daemon.target().portalUrl());
        assertFalse(after.output().contains("Portal:127.0.0.1:" + added), after.describe(20));
        refused(admin("portal-remove", "127.0.0.1:" + first), "is the last portal");
        refused(admin("portal-remove", "127.0.0.1:" + added), "no tcp portal 127.0.0.1:" + added);
    }

    @Test
    @Order(2)
    void aBusyPortIsRefusedWithTheReasonAndNothingChanges() throws Exception {
        List<String> before = portalList();
        try (ServerSocket busy = new ServerSocket()) {
            busy.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            String address = "127.0.0.1:" + busy.getLocalPort();
            refused(
                    admin("portal-add", address),
                    "cannot listen on " + address,
                    "Address already in use",
                    "nothing changed");
        }
        assertEquals(before, portalList());
    }

    @Test
    @Order(3)
    void discoveryChapSetLiveRefusesAnonymousDiscoveryAndAdmitsTheUser() throws Exception {
        Path secretFile = daemon.dataDir().resolve("discovery.secret");
        Files.writeString(secretFile, DISCOVERY_SECRET + "\n", StandardCharsets.UTF_8);
        String set =
                ok(admin("chap-set", "--discovery", "--user", DISCOVERY_USER, "--secret-file", secretFile.toString()));
        assertTrue(set.contains("discovery: user " + DISCOVERY_USER), set);
        String listed = ok(admin("--json", "chap-list"));
        assertTrue(listed.contains(DISCOVERY_USER) && !listed.contains(DISCOVERY_SECRET), listed);

        IscsiTarget t = daemon.target();
        ToolRun anonymous = tool("ls-anonymous", "iscsi-ls", t.portalUrl());
        assertFalse(
                anonymous.output().contains("Target:" + t.iqn()),
                "no targets without discovery CHAP\n" + anonymous.describe(20));
        ToolRun user = tool(
                "ls-chap",
                "iscsi-ls",
                "iscsi://" + DISCOVERY_USER + "%" + DISCOVERY_SECRET + "@" + t.host() + ":" + t.port());
        assertEquals(0, user.exitCode(), user.describe(20) + "\n" + daemon.logTail());
        assertTrue(user.output().contains("Target:" + t.iqn()), user.describe(20));

        Files.writeString(secretFile, "short\n", StandardCharsets.UTF_8);
        refused(
                admin("chap-set", "--discovery", "--user", DISCOVERY_USER, "--secret-file", secretFile.toString()),
                "chap.set params.discovery",
                "secret",
                "at least 12");
    }

    @Test
    @Order(4)
    void saveWritesTheLivePortalsAndDiscoveryChap() throws Exception {
        int added = DaemonProcess.freeLoopbackPort();
        ok(admin("portal-add", "127.0.0.1:" + added));
        ok(admin("save"));
        String saved = Files.readString(daemon.dataDir().resolve("target.yaml"), StandardCharsets.UTF_8);
        assertTrue(
                saved.contains("127.0.0.1:" + daemon.target().port()) && saved.contains("127.0.0.1:" + added), saved);
        assertTrue(saved.contains("discovery-chap:") && saved.contains(DISCOVERY_USER), saved);
    }
}
