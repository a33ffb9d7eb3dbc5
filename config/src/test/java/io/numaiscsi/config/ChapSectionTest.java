package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code chap:}, {@code discovery-chap:} and {@code initiators:}: values, precedence data, and secret-free errors. */
class ChapSectionTest {
    private static final String TARGET = "iqn.2026-11.io.numaiscsi:disk0";
    private static final String INITIATOR = "iqn.1994-05.com.redhat:client1";

    private static String target(String extra) {
        return "targets:\n  - name: " + TARGET + "\n" + extra + "    luns: [{id: 0, backing: ram, size: 1M}]\n";
    }

    private static TargetConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "t.yaml");
    }

    @Test
    void targetChapWithMutualCredentials() throws ConfigException {
        TargetConfig c = parse(target("    chap: {username: alice, secret: alice-secret-16, mutual-username: disk0, "
                + "mutual-secret: target-secret-16}\n"));
        ChapCredentials chap = c.targets().get(0).chap();
        assertEquals("alice", chap.username());
        assertArrayEquals("alice-secret-16".getBytes(StandardCharsets.UTF_8), chap.secret());
        assertTrue(chap.mutual());
        assertEquals("disk0", chap.mutualUsername());
        assertArrayEquals("target-secret-16".getBytes(StandardCharsets.UTF_8), chap.mutualSecret());
        assertFalse(chap.toString().contains("alice-secret-16"));
        assertFalse(chap.toString().contains("target-secret-16"));
        assertFalse(c.toString().contains("alice-secret-16"), "the whole config prints no secret");
    }

    @Test
    void withoutChapNothingIsRequired() throws ConfigException {
        TargetConfig c = parse(target(""));
        assertNull(c.targets().get(0).chap());
        assertNull(c.discoveryChap());
        assertTrue(c.initiators().isEmpty());
    }

    @Test
    void discoveryAndPerInitiatorCredentials() throws ConfigException {
        TargetConfig c = parse("discovery-chap: {username: disc, secret: discovery-secret}\n"
                + "initiators:\n  - name: " + INITIATOR + "\n    chap: {username: c1, secret: client1-secret-x}\n"
                + target(""));
        assertEquals("disc", c.discoveryChap().username());
        assertFalse(c.discoveryChap().mutual());
        assertEquals("c1", c.initiatorChap("IQN.1994-05.COM.REDHAT:CLIENT1").username());
        assertNull(c.initiatorChap("iqn.1994-05.com.redhat:other"));
    }

    @Test
    void overridesKeepTheSecuritySections() throws ConfigException {
        TargetConfig c = parse("discovery-chap: {username: disc, secret: discovery-secret}\n"
                + "limits: {max-sessions: 9}\n"
                + target("    chap: {username: alice, secret: alice-secret-16}\n    allow-networks: [10.0.0.0/8]\n"));
        for (TargetConfig o : new TargetConfig[] {
            c.withDataDir(Path.of("/tmp/elsewhere")),
            c.withPortals(List.of(Portal.parse("127.0.0.1:3261"))),
            c.withDaemon(c.daemon().withEventModel(DaemonSettings.EventModel.CENTRALIZED))
        }) {
            assertEquals("disc", o.discoveryChap().username());
            assertEquals(9, o.limits().maxSessions());
            assertEquals("alice", o.targets().get(0).chap().username());
            assertEquals(1, o.targets().get(0).allowNetworks().size());
        }
    }

    static final String SECRET = "hunter2-but-longer";
    static final String SHORT = "short-pw";

    static Stream<Arguments> badChap() {
        return Stream.of(
                Arguments.of(
                        "secret too short",
                        "{username: a, secret: " + SHORT + "}",
                        3,
                        "targets[0].chap.secret",
                        "is 8 bytes; a CHAP secret needs at least 12 (RFC 7143 12.1.3; 16 or more recommended)",
                        SHORT),
                Arguments.of(
                        "secret too long",
                        "{username: a, secret: " + "x".repeat(256) + "}",
                        3,
                        "targets[0].chap.secret",
                        "is 256 bytes; at most 255 are allowed",
                        "x".repeat(256)),
                Arguments.of("no secret", "{username: a}", 3, "targets[0].chap.secret", "is required", null),
                Arguments.of(
                        "no username",
                        "{secret: " + SECRET + "}",
                        3,
                        "targets[0].chap.username",
                        "is required",
                        SECRET),
                Arguments.of(
                        "secret as a list",
                        "{username: a, secret: [" + SECRET + "]}",
                        3,
                        "targets[0].chap.secret",
                        "expected a single value, found",
                        SECRET),
                Arguments.of(
                        "mutual without secret",
                        "{username: a, secret: " + SECRET + ", mutual-username: t}",
                        3,
                        "targets[0].chap.mutual-secret",
                        "is required with mutual-username",
                        SECRET),
                Arguments.of(
                        "mutual secret equal",
                        "{username: a, secret: " + SECRET + ", mutual-username: t, " + "mutual-secret: " + SECRET + "}",
                        3,
                        "targets[0].chap.mutual-secret",
                        "must differ from secret",
                        SECRET),
                Arguments.of(
                        "typo key",
                        "{username: a, secrets: " + SECRET + "}",
                        3,
                        "targets[0].chap.secrets",
                        "unknown key (did you mean \"secret\"?)",
                        SECRET));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badChap")
    void badCredentialsNameKeyAndLineButNeverTheSecret(
            String label, String chap, int line, String path, String problem, String secret) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(target("    chap: " + chap + "\n")));
        assertEquals(line, e.line(), e.getMessage());
        assertEquals(path, e.keyPath(), e.getMessage());
        assertTrue(e.problem().startsWith(problem), e.getMessage());
        if (secret != null) {
            assertFalse(e.getMessage().contains(secret), "the message shows the secret: " + e.getMessage());
        }
    }

    @Test
    void yamlSyntaxErrorInASecretLineDoesNotQuoteIt() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> parse(target("    chap:\n      username: a\n      secret: open: sesame-secret-77\n")));
        assertEquals(5, e.line(), e.getMessage());
        assertFalse(e.getMessage().contains("sesame-secret-77"), e.getMessage());
    }

    @Test
    void secretMayNotAuthenticateBothDirectionsAnywhereInTheFile() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> parse("discovery-chap: {username: d, secret: " + SECRET + "}\n"
                        + target("    chap: {username: a, secret: other-secret-16, mutual-username: t, mutual-secret: "
                                + SECRET + "}\n")));
        assertEquals("targets[0].chap.mutual-secret", e.keyPath());
        assertTrue(e.problem().contains("discovery-chap.secret at line 1"), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET));
    }

    @Test
    void initiatorsNeedValidUniqueNamesAndChap() {
        ConfigException dup = assertThrows(
                ConfigException.class,
                () -> parse("initiators:\n"
                        + "  - {name: " + INITIATOR + ", chap: {username: a, secret: " + SECRET + "}}\n"
                        + "  - {name: " + INITIATOR.toUpperCase() + ", chap: {username: b, secret: " + SECRET + "}}\n"
                        + target("")));
        assertEquals("initiators[1].name", dup.keyPath());
        ConfigException noChap = assertThrows(
                ConfigException.class, () -> parse("initiators:\n  - {name: " + INITIATOR + "}\n" + target("")));
        assertEquals("initiators[0].chap", noChap.keyPath());
        ConfigException badName = assertThrows(
                ConfigException.class,
                () -> parse("initiators:\n" + "  - {name: client1, chap: {username: a, secret: " + SECRET + "}}\n"
                        + target("")));
        assertEquals("initiators[0].name", badName.keyPath());
    }
}
