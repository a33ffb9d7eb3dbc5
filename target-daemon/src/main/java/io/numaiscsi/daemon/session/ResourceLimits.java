package io.numaiscsi.daemon.session;

/**
 * What the daemon lets initiators hold.
 *
 * @param maxSessions             sessions of the daemon (discovery sessions included)
 * @param maxSessionsPerInitiator sessions of one initiator name
 * @param writeBufferPerSession   bytes of Data-Out buffers one session may hold before further writes wait for R2Ts
 */
public record ResourceLimits(int maxSessions, int maxSessionsPerInitiator, long writeBufferPerSession) {
    public static final ResourceLimits DEFAULT = new ResourceLimits(1024, 256, 64L << 20);

    /** Connections still logging in on top of the session limit before new connections are turned away. */
    public static final int LOGIN_SLACK = 64;

    public ResourceLimits {
        if (maxSessions < 1 || maxSessionsPerInitiator < 1 || writeBufferPerSession < 1) {
            throw new IllegalArgumentException("resource limits must be positive");
        }
    }

    /** Open connections of the daemon, those in login included: one per session (MaxConnections=1) plus slack. */
    public int maxConnections() {
        return maxSessions + LOGIN_SLACK;
    }
}
