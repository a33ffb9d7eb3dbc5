package io.numaiscsi.config;

/**
 * The {@code limits:} section: what one daemon and one initiator may hold.
 *
 * @param maxSessions               sessions of the whole daemon, discovery sessions included
 * @param maxSessionsPerInitiator   sessions of one initiator name (any ISID, any target)
 * @param writeBufferPerSession     bytes of Data-Out buffers one session (connection) may hold; further writes wait
 *                                  for their R2Ts instead of failing
 */
public record LimitsSettings(int maxSessions, int maxSessionsPerInitiator, long writeBufferPerSession) {

    public static final LimitsSettings DEFAULT = new LimitsSettings(1024, 256, 64L << 20);

    public LimitsSettings {
        if (maxSessions < 1 || maxSessionsPerInitiator < 1 || writeBufferPerSession < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }
}
