package io.numaiscsi.config;

import java.util.List;

/** The {@code limits:} section. */
final class LimitsSection {

    static final String KEY = "limits";
    static final List<String> KEYS = List.of("max-sessions", "max-sessions-per-initiator", "write-buffer-per-session");
    /** TSIH is 16 bits, 0 reserved. */
    static final int MAX_SESSIONS = 65_535;
    static final long MIN_WRITE_BUFFER = 64L << 10;
    static final long MAX_WRITE_BUFFER = 64L << 30;

    private LimitsSection() {
    }

    static LimitsSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        LimitsSettings d = LimitsSettings.DEFAULT;
        int maxSessions = f.integer("max-sessions", 1, MAX_SESSIONS, d.maxSessions());
        int perInitiator = f.integer("max-sessions-per-initiator", 1, MAX_SESSIONS, Math.min(d.maxSessionsPerInitiator(),
                maxSessions));
        if (perInitiator > maxSessions) {
            throw f.optional("max-sessions-per-initiator").error(perInitiator + " exceeds max-sessions " + maxSessions);
        }
        long writeBuffer = d.writeBufferPerSession();
        Cursor c = f.optional("write-buffer-per-session");
        if (c != null) {
            writeBuffer = c.size();
            if (writeBuffer < MIN_WRITE_BUFFER || writeBuffer > MAX_WRITE_BUFFER) {
                throw c.error(c.text() + " is out of range (64K..64G)");
            }
        }
        return new LimitsSettings(maxSessions, perInitiator, writeBuffer);
    }
}
