package io.numaiscsi.config;

import java.time.Duration;
import java.util.List;

/** The {@code limits:} section. */
final class LimitsSection {

    static final String KEY = "limits";
    static final List<String> KEYS = List.of(
            "max-sessions",
            "max-sessions-per-initiator",
            "write-buffer-per-session",
            "max-logins",
            "logins-per-address",
            "login-timeout",
            "login-pdu-timeout",
            "data-out-timeout",
            "data-in-per-connection",
            "buffer-memory");
    /** TSIH is 16 bits, 0 reserved. */
    static final int MAX_SESSIONS = 65_535;

    static final long MIN_WRITE_BUFFER = 64L << 10;
    static final long MAX_WRITE_BUFFER = 64L << 30;
    static final long MIN_BUFFER_MEMORY = 16L << 20;
    static final long MAX_BUFFER_MEMORY = 1L << 40;
    static final Duration MAX_TIMEOUT = Duration.ofHours(1);

    private LimitsSection() {}

    static LimitsSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        LimitsSettings d = LimitsSettings.DEFAULT;
        int maxSessions = f.integer("max-sessions", 1, MAX_SESSIONS, d.maxSessions());
        int perInitiator = f.integer(
                "max-sessions-per-initiator", 1, MAX_SESSIONS, Math.min(d.maxSessionsPerInitiator(), maxSessions));
        if (perInitiator > maxSessions) {
            throw f.optional("max-sessions-per-initiator").error(perInitiator + " exceeds max-sessions " + maxSessions);
        }
        long writeBuffer = size(
                f,
                "write-buffer-per-session",
                MIN_WRITE_BUFFER,
                MAX_WRITE_BUFFER,
                "64K..64G",
                d.writeBufferPerSession());
        int maxLogins = f.integer("max-logins", 1, MAX_SESSIONS, d.maxLogins());
        int perAddress = f.integer("logins-per-address", 1, MAX_SESSIONS, Math.min(d.loginsPerAddress(), maxLogins));
        if (perAddress > maxLogins) {
            throw f.optional("logins-per-address").error(perAddress + " exceeds max-logins " + maxLogins);
        }
        Duration loginTimeout = duration(f, "login-timeout", d.loginTimeout());
        Duration pduTimeout = duration(f, "login-pdu-timeout", d.loginPduTimeout());
        if (pduTimeout.compareTo(loginTimeout) > 0) {
            throw f.optional(f.optional("login-pdu-timeout") != null ? "login-pdu-timeout" : "login-timeout")
                    .error("login-pdu-timeout " + Durations.format(pduTimeout) + " is longer than login-timeout "
                            + Durations.format(loginTimeout));
        }
        Duration dataOutTimeout = duration(f, "data-out-timeout", d.dataOutTimeout());
        long dataIn = size(
                f, "data-in-per-connection", MIN_WRITE_BUFFER, MAX_WRITE_BUFFER, "64K..64G", d.dataInPerConnection());
        long bufferMemory = size(f, "buffer-memory", MIN_BUFFER_MEMORY, MAX_BUFFER_MEMORY, "16M..1T", d.bufferMemory());
        return new LimitsSettings(
                maxSessions,
                perInitiator,
                writeBuffer,
                maxLogins,
                perAddress,
                loginTimeout,
                pduTimeout,
                dataOutTimeout,
                dataIn,
                bufferMemory);
    }

    private static long size(Fields f, String key, long min, long max, String range, long fallback)
            throws ConfigException {
        Cursor c = f.optional(key);
        if (c == null) {
            return fallback;
        }
        long value = c.size();
        if (value < min || value > max) {
            throw c.error(c.text() + " is out of range (" + range + ")");
        }
        return value;
    }

    private static Duration duration(Fields f, String key, Duration fallback) throws ConfigException {
        Cursor c = f.optional(key);
        return c == null ? fallback : c.duration(Duration.ofSeconds(1), MAX_TIMEOUT, false);
    }
}
