package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * Targets and sessions changed through numa-iscsi-admin while initiators are logged in: a target created with its
 * LUN and access list, its rules changed (new logins follow; with --force the sessions refused are asked to log
 * out by an Asynchronous Message), deleted; a session asked to log out or closed; bad requests and a burst of 1,000
 * on the raw socket answered with JSON-RPC errors that name the field, nothing changed. Last, SIGTERM asks the
 * logged-in initiator to log out before the daemon stops.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdminTargetsTest {
    static final Duration ASYNC_WAIT = Duration.ofSeconds(5);
    static final String MADE = "iqn.2026-11.io.numaiscsi:admin-made";
    static final String OTHER_INITIATOR = "iqn.2026-11.example:someone-else";
    private static final ObjectMapper JSON = new ObjectMapper();

    private DaemonProcess daemon;
    private Path socket;
    private AdminCliRun cli;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        daemon = DaemonProcess.start("AdminTargetsTest", DaemonProcess.Setup.fileLun(16L << 20));
        socket = daemon.dataDir().resolve("admin.sock");
        cli = new AdminCliRun("AdminTargetsTest", socket);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ToolRun admin(String... args) throws Exception {
        return cli.run(args);
    }

    private static String ok(ToolRun r) throws IOException {
        return AdminCliRun.ok(r);
    }

    private static void refused(ToolRun r, String... phrases) throws IOException {
        assertEquals(1, r.exitCode(), r.describe(20));
        for (String p : phrases) {
            assertTrue(r.output().contains(p), "\"" + p + "\" in: " + r.output());
        }
    }

    private IscsiTarget made() {
        IscsiTarget t = daemon.target();
        return new IscsiTarget(t.host(), t.port(), MADE, 0);
    }

    /** The Login Response's Status-Class and Detail (0x0000 logged in) of a fresh login as {@code initiator}. */
    private int loginStatus(IscsiTarget target, String initiator) throws IOException {
        try (TestConnection c = TestConnection.open(target)) {
            var keys = TestConnection.loginKeys(target);
            keys.put("InitiatorName", initiator);
            TestPdu rsp = c.attemptLogin(keys, TestConnection.newIsidQualifier());
            assertNotNull(rsp, "a Login Response");
            return rsp.byteAt(36) << 8 | rsp.byteAt(37);
        }
    }

    /** Waits for the target's "please log out" (AsyncEvent 1) and returns the seconds it gives. */
    private static int awaitLogoutRequest(TestConnection c) throws IOException {
        TestPdu p = c.expect(ASYNC_WAIT, "an Asynchronous Message asking for logout");
        assertEquals(TestPdu.ASYNC_MESSAGE, p.opcode(), p.toString());
        assertEquals(1, p.byteAt(36), "AsyncEvent 1: target requests logout; " + p);
        return p.byteAt(42) << 8 | p.byteAt(43);
    }

    @Test
    @Order(1)
    void targetsAreCreatedChangedAndDeletedWhileSessionsRun() throws Exception {
        ok(admin(
                "target-create",
                MADE,
                "--lun",
                "id=0,backing=ram,size=8M",
                "--alias",
                "made by the CLI",
                "--allow",
                TestConnection.INITIATOR_NAME));
        JsonNode listed = JSON.readTree(ok(admin("--json", "ls"))).path("targets");
        assertEquals(2, listed.size(), listed.toPrettyString());
        assertEquals(MADE, listed.get(1).path("name").asText());
        assertEquals(
                TestConnection.INITIATOR_NAME,
                listed.get(1).path("allow").get(0).asText(),
                listed.toPrettyString());
        assertEquals(
                0x0202, loginStatus(made(), OTHER_INITIATOR), "an initiator not on the list: authorization failure");

        try (TestConnection c = TestConnection.loggedIn(made())) {
            byte[] data = ScsiCdb.pattern(4096, 3);
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 0, 8, data).status(), "WRITE to the created target");

            String kept = ok(admin("target-set", MADE, "--allow", OTHER_INITIATOR));
            assertTrue(kept.contains("1 session(s) the new rules refuse stay logged in"), kept);
            assertArrayEquals(
                    data,
                    LunChecks.command(c, 0, ScsiCdb.read10(8, 8), 4096).data(),
                    "the session goes on under the old rules");
            assertEquals(
                    0x0202, loginStatus(made(), TestConnection.INITIATOR_NAME), "a new login follows the new rules");
            assertEquals(0, loginStatus(made(), OTHER_INITIATOR), "the newly allowed initiator logs in");

            refused(
                    admin("target-set", MADE, "--allow-network", "10.0.0.0/33"),
                    "target.set params",
                    "allow-networks[0]");
            String forced = ok(admin("target-set", MADE, "--allow", OTHER_INITIATOR, "--force"));
            assertTrue(forced.contains("1 session(s) asked to log out"), forced);
            assertEquals(5, awaitLogoutRequest(c), "Parameter3: seconds to log out");
            assertTrue(RawIo.logout(c, ASYNC_WAIT), "the initiator logs out as asked");
        }

        ok(admin("target-set", MADE, "--allow", "ALL"));
        try (TestConnection c = TestConnection.loggedIn(made())) {
            refused(admin("target-delete", MADE), "has 1 session(s) logged in");
            assertEquals(
                    2, JSON.readTree(ok(admin("--json", "ls"))).path("targets").size(), "nothing deleted");
            assertTrue(ok(admin("target-delete", MADE, "--force")).contains("1 session(s) asked to log out"));
            awaitLogoutRequest(c);
            // this initiator ignores the request: the target closes the connection when the 5 s are up
            assertNull(c.read(Duration.ofSeconds(8)), "closed after ignoring the logout request");
        }
        assertEquals(1, JSON.readTree(ok(admin("--json", "ls"))).path("targets").size());
        assertEquals(
                0x0202,
                loginStatus(made(), TestConnection.INITIATOR_NAME),
                "a deleted target: refused as not allowed (the daemon does not tell who may probe names)");

        String log = Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
        for (String audit : List.of(
                "admin: add target " + MADE,
                "admin: add LUN 0 (ram, 8388608 bytes) to " + MADE,
                "admin: change access rules, CHAP or alias of target " + MADE,
                "admin: remove target " + MADE)) {
            assertTrue(log.contains(audit), audit + "\n" + daemon.logTail());
        }
        TestConnection.assertFreshSessionWorks(daemon);
    }

    @Test
    @Order(2)
    void aSessionIsAskedToLogOutOrClosed() throws Exception {
        try (TestConnection polite = TestConnection.loggedIn(daemon.target());
                TestConnection rude = TestConnection.loggedIn(daemon.target())) {
            JsonNode sessions = JSON.readTree(ok(admin("--json", "sessions")));
            assertEquals(2, sessions.size(), sessions.toPrettyString());
            int first = sessions.get(0).path("tsih").asInt();
            int second = sessions.get(1).path("tsih").asInt();
            assertTrue(sessions.get(0).has("commands_in_flight"), sessions.toPrettyString());

            assertTrue(ok(admin("session-logout", Integer.toString(first))).contains("asked to log out"));
            awaitLogoutRequest(polite);
            assertTrue(RawIo.logout(polite, ASYNC_WAIT));
            assertTrue(ok(admin("session-logout", Integer.toString(second), "--force"))
                    .contains("closed"));
            assertNull(rude.read(ASYNC_WAIT), "closed at once");
            refused(admin("session-logout", "65000"), "session.logout: params.tsih: no session 65000");
        }
        TestConnection.assertFreshSessionWorks(daemon);
    }

    @Test
    @Order(3)
    void badRequestsNameTheFieldAndChangeNothing() throws Exception {
        String iqn = daemon.target().iqn();
        String before = ok(admin("--json", "ls"));
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            assertEquals(
                    -32601,
                    call(ch, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"lun.grow\"}")
                            .path("code")
                            .asInt());
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"lun.remove\",\"params\":{\"target\":7,\"id\":0}}",
                    "params.target");
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"lun.remove\",\"params\":{\"target\":\"" + iqn
                            + "\",\"id\":\"zero\"}}",
                    "params.id");
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"lun.add\",\"params\":{\"target\":\"" + iqn
                            + "\",\"lun\":{\"id\":0,\"backing\":\"ram\",\"size\":\"1M\"}}}",
                    "already has LUN 0");
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"lun.add\",\"params\":{\"target\":\"" + iqn
                            + "\",\"lun\":{\"id\":2,\"backing\":\"file\",\"path\":\"/nonexistent-dir/x.img\",\"size\":\"1M\"}}}",
                    "path: directory /nonexistent-dir does not exist");
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"target.create\",\"params\":{\"target\":"
                            + "{\"name\":\"not an iqn\",\"luns\":[]}}}",
                    "target.create params.target");
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"target.set\",\"params\":{\"target\":\"" + iqn
                            + "\",\"colour\":\"red\"}}",
                    "params.colour");
            expectInvalid(
                    ch,
                    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"lun.remove\",\"params\":{\"target\":\"" + iqn
                            + "\",\"id\":0}}",
                    "last LUN");
            assertEquals(-32700, call(ch, "\u0001\u0002garbage{{{").path("code").asInt(), "garbage: parse error");

            StringBuilder burst = new StringBuilder();
            int n = 1000;
            for (int i = 0; i < n; i++) {
                burst.append(
                        i % 2 == 0
                                ? "{\"jsonrpc\":\"2.0\",\"id\":" + (100 + i) + ",\"method\":\"daemon.status\"}\n"
                                : "{\"jsonrpc\":\"2.0\",\"id\":" + (100 + i)
                                        + ",\"method\":\"target.delete\",\"params\":{}}\n");
            }
            write(ch, burst.toString());
            LineReader in = new LineReader(ch);
            for (int i = 0; i < n; i++) {
                JsonNode r = JSON.readTree(in.line());
                assertEquals(100 + i, r.path("id").asInt(), "answers in order");
                assertEquals(i % 2 == 0, r.has("result"), r.toString());
            }
        }
        assertEquals(JSON.readTree(before), JSON.readTree(ok(admin("--json", "ls"))), "nothing changed");
        TestConnection.assertFreshSessionWorks(daemon);
    }

    private void expectInvalid(SocketChannel ch, String request, String field) throws IOException {
        JsonNode error = call(ch, request);
        assertEquals(-32602, error.path("code").asInt(), request + " -> " + error);
        assertTrue(error.path("message").asText().contains(field), "names " + field + ": " + error);
    }

    /** One request line; the response's error object (fails if there is none). */
    private static JsonNode call(SocketChannel ch, String request) throws IOException {
        write(ch, request + "\n");
        JsonNode r = JSON.readTree(new LineReader(ch).line());
        assertTrue(r.has("error"), request + " -> " + r);
        return r.path("error");
    }

    private static void write(SocketChannel ch, String text) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Reads response lines one byte at a time (so no line of a later response is read ahead and lost). */
    private record LineReader(SocketChannel ch) {
        String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            ByteBuffer one = ByteBuffer.allocate(1);
            while (true) {
                one.clear();
                if (ch.read(one) < 0) {
                    throw new IOException("the daemon closed the admin connection after: " + sb);
                }
                char ch0 = (char) one.get(0);
                if (ch0 == '\n') {
                    return sb.toString();
                }
                sb.append(ch0);
            }
        }
    }

    @Test
    @Order(4)
    void sigtermAsksTheLoggedInInitiatorToLogOutFirst() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> {
                try {
                    return daemon.stop();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertEquals(5, awaitLogoutRequest(c));
            assertTrue(RawIo.logout(c, ASYNC_WAIT), "logged out");
            assertEquals(0, exit.get(30, TimeUnit.SECONDS), "clean exit");
        }
        String log = Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
        assertTrue(log.contains("stopping: asked 1 session(s) to log out"), daemon.logTail());
        assertTrue(log.contains("stopping: every session has logged out"), daemon.logTail());
        assertFalse(log.contains("still open; closing them"), daemon.logTail());
    }
}
