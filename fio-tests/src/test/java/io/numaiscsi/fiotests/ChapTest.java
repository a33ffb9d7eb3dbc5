package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * CHAP (RFC 7143 12.1.3) against real initiators and raw logins: libiscsi's iscsi-inq and iscsi-ls with CHAP and
 * mutual CHAP credentials in the URL, a discovery session that must authenticate, and raw logins for a wrong
 * secret, an unsupported algorithm and a reflected challenge. Every refusal is one daemon log line without a secret.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChapTest {
    static final Duration LIMIT = Duration.ofSeconds(60);
    static final Duration ANSWER = Duration.ofSeconds(5);
    static final String ONE_WAY = "iqn.2026-11.io.numaiscsi:chap";
    static final String MUTUAL = "iqn.2026-11.io.numaiscsi:mutual";
    static final String USER = "alice";
    static final String SECRET = "alice-secret-0123";
    static final String MUTUAL_USER = "target-mutual";
    static final String MUTUAL_SECRET = "target-secret-4567";
    static final String DISCOVERY_USER = "discoverer";
    static final String DISCOVERY_SECRET = "discovery-secret-89";
    static final List<String> SECRETS = List.of(SECRET, MUTUAL_SECRET, DISCOVERY_SECRET);

    private ConfiguredDaemon daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = ConfiguredDaemon.start(
                "ChapTest",
                ""
                        + "discovery-chap: {username: " + DISCOVERY_USER + ", secret: " + DISCOVERY_SECRET + "}\n"
                        + "targets:\n"
                        + "  - name: " + ONE_WAY + "\n"
                        + "    chap: {username: " + USER + ", secret: " + SECRET + "}\n"
                        + "    luns: [{id: 0, backing: ram, size: 16M}]\n"
                        + "  - name: " + MUTUAL + "\n"
                        + "    chap: {username: " + USER + ", secret: " + SECRET + ", mutual-username: " + MUTUAL_USER
                        + ", mutual-secret: " + MUTUAL_SECRET + "}\n"
                        + "    luns: [{id: 0, backing: ram, size: 16M}]\n");
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
            String log = daemon.logText();
            for (String s : SECRETS) {
                assertFalse(log.contains(s), "a CHAP secret is in the daemon log " + daemon.log());
            }
        }
    }

    private ToolRun tool(String name, String... command) throws Exception {
        return ToolRun.run(DaemonProcess.logDir().resolve("ChapTest-" + name + ".log"), LIMIT, List.of(command));
    }

    private String url(String credentials, String iqn, String args) {
        IscsiTarget t = daemon.target(iqn);
        return "iscsi://" + credentials + "@" + t.host() + ":" + t.port() + "/" + iqn + "/0" + args;
    }

    private String context(ToolRun run) {
        return "\n" + run.describe(20) + "\n" + daemon.logTail();
    }

    // ---- libiscsi ----------------------------------------------------------------------------

    @Test
    void libiscsiLogsInWithTheRightSecretOnly() throws Exception {
        ToolRun ok = tool("inq-ok", "iscsi-inq", url(USER + "%" + SECRET, ONE_WAY, ""));
        assertEquals(0, ok.exitCode(), "iscsi-inq with CHAP" + context(ok));
        assertTrue(ok.output().contains("Peripheral Device Type"), "INQUIRY answered" + context(ok));

        int before = daemon.logLines("rejected").size();
        ToolRun wrong = tool("inq-wrong", "iscsi-inq", url(USER + "%wrong-secret-000", ONE_WAY, ""));
        assertNotEquals(0, wrong.exitCode(), "iscsi-inq with a wrong secret must fail" + context(wrong));
        List<String> rejected = daemon.awaitLogLines("rejected", before + 1);
        assertEquals(before + 1, rejected.size(), "one log line per refused login\n" + daemon.logTail());
        String line = rejected.get(rejected.size() - 1);
        assertTrue(line.contains("wrong CHAP_R"), line);
        assertFalse(line.contains("wrong-secret-000"), line);

        ToolRun none = tool("inq-none", "iscsi-inq", url("", ONE_WAY, "").replace("iscsi://@", "iscsi://"));
        assertNotEquals(0, none.exitCode(), "iscsi-inq without credentials must fail" + context(none));
        daemon.assertAlive();
    }

    @Test
    void libiscsiMutualChapChecksTheTargetsResponse() throws Exception {
        String args = "?target_user=" + MUTUAL_USER + "&target_password=" + MUTUAL_SECRET;
        ToolRun ok = tool("mutual-ok", "iscsi-inq", url(USER + "%" + SECRET, MUTUAL, args));
        assertEquals(0, ok.exitCode(), "iscsi-inq with mutual CHAP" + context(ok));
        ToolRun wrongTarget = tool(
                "mutual-wrong",
                "iscsi-inq",
                url(USER + "%" + SECRET, MUTUAL, "?target_user=" + MUTUAL_USER + "&target_password=not-the-target-pw"));
        assertNotEquals(
                0,
                wrongTarget.exitCode(),
                "the initiator must refuse a target proving another secret" + context(wrongTarget));
        ToolRun noMutualCredentials = tool("mutual-unsupported", "iscsi-inq", url(USER + "%" + SECRET, ONE_WAY, args));
        assertNotEquals(
                0,
                noMutualCredentials.exitCode(),
                "mutual CHAP towards a target without mutual credentials" + context(noMutualCredentials));
        daemon.assertAlive();
    }

    @Test
    void discoveryNeedsTheDiscoveryCredentials() throws Exception {
        IscsiTarget t = daemon.target(ONE_WAY);
        ToolRun ok = tool(
                "ls-ok",
                "iscsi-ls",
                "iscsi://" + DISCOVERY_USER + "%" + DISCOVERY_SECRET + "@" + t.host() + ":" + t.port());
        assertEquals(0, ok.exitCode(), "iscsi-ls (discovery only) with discovery CHAP" + context(ok));
        assertTrue(ok.output().contains("Target:" + ONE_WAY), "target listed" + context(ok));
        int before = daemon.logLines("rejected").size();
        ToolRun anonymous = tool("ls-anonymous", "iscsi-ls", t.portalUrl());
        assertFalse(
                anonymous.output().contains("Target:" + ONE_WAY),
                "no targets without discovery CHAP" + context(anonymous));
        List<String> rejected = daemon.awaitLogLines("rejected", before + 1);
        assertTrue(rejected.get(rejected.size() - 1).contains("authentication"), rejected.toString());
    }

    // ---- raw logins ----------------------------------------------------------------------------

    /** A security-stage Login Request; {@code transit} asks for the operational stage next. */
    private static TestPdu security(TestConnection c, int isidQualifier, boolean transit, Map<String, String> keys) {
        return TestPdu.of(TestPdu.LOGIN_REQUEST)
                .immediate()
                .flags(transit ? TestPdu.TRANSIT | 1 : 0)
                .byteAt(8, 0x80)
                .byteAt(11, isidQualifier >>> 16)
                .byteAt(12, isidQualifier >>> 8)
                .byteAt(13, isidQualifier)
                .itt(1)
                .int32(24, c.cmdSn())
                .text(keys);
    }

    private static Map<String, String> keys(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private TestPdu exchange(TestConnection c, TestPdu request) throws IOException {
        c.send(request);
        TestPdu rsp = c.read(ANSWER);
        assertNotNull(rsp, "closed\ntrace: " + c.trace() + "\n" + daemon.logTail());
        assertEquals(TestPdu.LOGIN_RESPONSE, rsp.opcode(), rsp.toString());
        return rsp;
    }

    private static int status(TestPdu rsp) {
        return rsp.byteAt(36) << 8 | rsp.byteAt(37);
    }

    /** Runs AuthMethod and CHAP_A; returns the target's CHAP_I and challenge. */
    private Object[] challenge(TestConnection c, int q, String algorithms) throws IOException {
        TestPdu r1 = exchange(
                c,
                security(
                        c,
                        q,
                        true,
                        keys(
                                "InitiatorName",
                                TestConnection.INITIATOR_NAME,
                                "TargetName",
                                MUTUAL,
                                "SessionType",
                                "Normal",
                                "AuthMethod",
                                "CHAP,None")));
        assertEquals(0, status(r1));
        assertEquals("CHAP", r1.textKeys().get("AuthMethod"));
        assertEquals(0, r1.flags() & TestPdu.TRANSIT, "no transit before authentication");
        TestPdu r2 = exchange(c, security(c, q, false, keys("CHAP_A", algorithms)));
        if (status(r2) != 0) {
            return new Object[] {-1, null, r2};
        }
        String ch = r2.textKeys().get("CHAP_C");
        assertTrue(ch.startsWith("0x") && ch.length() >= 2 + 32, "a challenge of at least 16 bytes: " + ch);
        return new Object[] {
            Integer.parseInt(r2.textKeys().get("CHAP_I")), HexFormat.of().parseHex(ch.substring(2)), r2
        };
    }

    private static String md5(int id, String secret, byte[] challenge) throws Exception {
        MessageDigest md = MessageDigest.getInstance("MD5");
        md.update((byte) id);
        md.update(secret.getBytes(StandardCharsets.UTF_8));
        md.update(challenge);
        return "0x" + HexFormat.of().formatHex(md.digest());
    }

    private void assertRefused(TestConnection c, TestPdu rsp, int expectedStatus, String reason) throws Exception {
        assertEquals(expectedStatus, status(rsp), "login status\ntrace: " + c.trace());
        assertNull(c.read(ANSWER), "the target closes after a refused login");
        List<String> lines = daemon.awaitLogLines(reason, 1);
        assertEquals(1, lines.size(), "exactly one log line with '" + reason + "'\n" + daemon.logTail());
    }

    @Test
    void rawMutualLoginProvesBothSides() throws Exception {
        try (TestConnection c = TestConnection.open(daemon.target(MUTUAL))) {
            int q = TestConnection.newIsidQualifier();
            Object[] ic = challenge(c, q, "5");
            byte[] ours = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
            TestPdu r3 = exchange(
                    c,
                    security(
                            c,
                            q,
                            true,
                            keys(
                                    "CHAP_N",
                                    USER,
                                    "CHAP_R",
                                    md5((int) ic[0], SECRET, (byte[]) ic[1]),
                                    "CHAP_I",
                                    "77",
                                    "CHAP_C",
                                    "0x" + HexFormat.of().formatHex(ours))));
            assertEquals(0, status(r3), "trace: " + c.trace());
            assertEquals(MUTUAL_USER, r3.textKeys().get("CHAP_N"));
            assertEquals(md5(77, MUTUAL_SECRET, ours), r3.textKeys().get("CHAP_R"));
            assertEquals(TestPdu.TRANSIT | 1, r3.flags() & (TestPdu.TRANSIT | 3), "on to the operational stage");
        }
    }

    @Test
    void reflectedChallengeIsRefused() throws Exception {
        try (TestConnection c = TestConnection.open(daemon.target(MUTUAL))) {
            int q = TestConnection.newIsidQualifier();
            Object[] ic = challenge(c, q, "5");
            TestPdu r3 = exchange(
                    c,
                    security(
                            c,
                            q,
                            true,
                            keys(
                                    "CHAP_N",
                                    USER,
                                    "CHAP_R",
                                    md5((int) ic[0], SECRET, (byte[]) ic[1]),
                                    "CHAP_I",
                                    Integer.toString((int) ic[0]),
                                    "CHAP_C",
                                    "0x" + HexFormat.of().formatHex((byte[]) ic[1]))));
            assertNull(r3.textKeys().get("CHAP_R"), "no answer to our own challenge");
            assertRefused(c, r3, 0x0201, "reflects the target's challenge");
        }
    }

    @Test
    void wrongSecretIsAnAuthenticationFailure() throws Exception {
        try (TestConnection c = TestConnection.open(daemon.target(MUTUAL))) {
            int q = TestConnection.newIsidQualifier();
            Object[] ic = challenge(c, q, "5");
            TestPdu r3 = exchange(
                    c,
                    security(c, q, true, keys("CHAP_N", "mallory", "CHAP_R", md5((int) ic[0], "mallory-secret-1", (byte
                                    [])
                            ic[1]))));
            assertRefused(c, r3, 0x0201, "CHAP_N=mallory is not the configured user name");
        }
    }

    @Test
    void unsupportedAlgorithmIsRefused() throws Exception {
        try (TestConnection c = TestConnection.open(daemon.target(MUTUAL))) {
            int q = TestConnection.newIsidQualifier();
            Object[] ic = challenge(c, q, "7");
            assertRefused(c, (TestPdu) ic[2], 0x0201, "CHAP_A=7 offers no algorithm");
        }
    }
}
