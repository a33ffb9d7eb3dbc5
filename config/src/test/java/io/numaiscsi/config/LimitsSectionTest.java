package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LimitsSectionTest {
    private static final String TARGETS =
            "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n    luns: [{id: 0, backing: ram, size: 1M}]\n";

    @Test
    void defaultsWhenAbsent() throws ConfigException {
        assertEquals(
                LimitsSettings.DEFAULT, ConfigLoader.parse(TARGETS, "t.yaml").limits());
        assertEquals(new LimitsSettings(1024, 256, 64L << 20), LimitsSettings.DEFAULT);
    }

    @Test
    void values() throws ConfigException {
        LimitsSettings l = ConfigLoader.parse(
                        "limits:\n  max-sessions: 8\n  max-sessions-per-initiator: 2\n"
                                + "  write-buffer-per-session: 4M\n" + TARGETS,
                        "t.yaml")
                .limits();
        assertEquals(new LimitsSettings(8, 2, 4L << 20), l);
    }

    @Test
    void loginAndBufferLimits() throws ConfigException {
        LimitsSettings l = ConfigLoader.parse(
                        "limits:\n  max-logins: 32\n  logins-per-address: 4\n"
                                + "  login-timeout: 10s\n  login-pdu-timeout: 2s\n  data-out-timeout: 30s\n"
                                + "  data-in-per-connection: 8M\n  buffer-memory: 256M\n" + TARGETS,
                        "t.yaml")
                .limits();
        assertEquals(
                new LimitsSettings(
                        1024,
                        256,
                        64L << 20,
                        32,
                        4,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(30),
                        8L << 20,
                        256L << 20),
                l);
    }

    @Test
    void perAddressDefaultFollowsASmallLoginLimit() throws ConfigException {
        assertEquals(
                8,
                ConfigLoader.parse("limits: {max-logins: 8}\n" + TARGETS, "t.yaml")
                        .limits()
                        .loginsPerAddress());
    }

    @Test
    void perInitiatorDefaultFollowsASmallDaemonLimit() throws ConfigException {
        assertEquals(
                4,
                ConfigLoader.parse("limits: {max-sessions: 4}\n" + TARGETS, "t.yaml")
                        .limits()
                        .maxSessionsPerInitiator());
    }

    static Stream<Arguments> bad() {
        return Stream.of(
                Arguments.of("max-sessions: 0", "limits.max-sessions", "0 is out of range (1..65535)"),
                Arguments.of("max-sessions: 65536", "limits.max-sessions", "65536 is out of range (1..65535)"),
                Arguments.of(
                        "max-sessions: 2\n  max-sessions-per-initiator: 3",
                        "limits.max-sessions-per-initiator",
                        "3 exceeds max-sessions 2"),
                Arguments.of(
                        "write-buffer-per-session: 4K",
                        "limits.write-buffer-per-session",
                        "4K is out of range (64K..64G)"),
                Arguments.of("write-buffer-per-session: lots", "limits.write-buffer-per-session", null),
                Arguments.of(
                        "max-logins: 4\n  logins-per-address: 5",
                        "limits.logins-per-address",
                        "5 exceeds max-logins 4"),
                Arguments.of(
                        "login-timeout: 2s",
                        "limits.login-timeout",
                        "login-pdu-timeout 5s is longer than login-timeout 2s"),
                Arguments.of("login-pdu-timeout: 0", "limits.login-pdu-timeout", null),
                Arguments.of("buffer-memory: 1M", "limits.buffer-memory", "1M is out of range (16M..1T)"),
                Arguments.of(
                        "data-in-per-connection: 1K", "limits.data-in-per-connection", "1K is out of range (64K..64G)"),
                Arguments.of("max-session: 3", "limits.max-session", "unknown key (did you mean \"max-sessions\"?)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bad")
    void rejects(String line, String path, String problem) {
        ConfigException e = assertThrows(
                ConfigException.class, () -> ConfigLoader.parse("limits:\n  " + line + "\n" + TARGETS, "t.yaml"));
        assertEquals(path, e.keyPath(), e.getMessage());
        if (problem != null) {
            assertEquals(problem, e.problem());
        }
    }
}
