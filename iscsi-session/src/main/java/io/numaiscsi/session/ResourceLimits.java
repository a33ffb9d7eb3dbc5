package io.numaiscsi.session;

import java.time.Duration;

/**
 * What the daemon lets initiators hold (the config's {@code limits:} section).
 *
 * @param maxSessions             sessions of the daemon (discovery sessions included)
 * @param maxSessionsPerInitiator sessions of one initiator name
 * @param writeBufferPerSession   bytes of Data-Out buffers one session may hold before further writes wait for R2Ts
 * @param maxLogins               connections in login, daemon-wide
 * @param loginsPerAddress        connections in login from one source address
 * @param loginTimeout            time to complete a login
 * @param loginPduTimeout         time to send the next complete PDU while in login
 * @param dataOutTimeout          time a connection may owe solicited Data-Out before it is dropped
 * @param dataInPerConnection     bytes of reads one connection may have executing (and unsent beyond that)
 * @param bufferMemory            bytes of read and write buffers of all connections together
 */
public record ResourceLimits(
        int maxSessions,
        int maxSessionsPerInitiator,
        long writeBufferPerSession,
        int maxLogins,
        int loginsPerAddress,
        Duration loginTimeout,
        Duration loginPduTimeout,
        Duration dataOutTimeout,
        long dataInPerConnection,
        long bufferMemory) {
    public static final ResourceLimits DEFAULT = new ResourceLimits(1024, 256, 64L << 20);

    /** What a connection holding no buffer may always take for one command, whatever the daemon-wide budget says. */
    public static final int GUARANTEED_BUFFER = 1 << 20;

    public ResourceLimits {
        if (maxSessions < 1
                || maxSessionsPerInitiator < 1
                || writeBufferPerSession < 1
                || maxLogins < 1
                || loginsPerAddress < 1
                || dataInPerConnection < 1
                || bufferMemory < 1) {
            throw new IllegalArgumentException("resource limits must be positive");
        }
    }

    /** The session limits and write budget given, every other limit at its default. */
    public ResourceLimits(int maxSessions, int maxSessionsPerInitiator, long writeBufferPerSession) {
        this(
                maxSessions,
                maxSessionsPerInitiator,
                writeBufferPerSession,
                512,
                128,
                Duration.ofSeconds(15),
                Duration.ofSeconds(5),
                Duration.ofSeconds(20),
                16L << 20,
                1L << 30);
    }

    /** Open connections of the daemon, those in login included: one per session (MaxConnections=1) plus logins. */
    public int maxConnections() {
        return maxSessions + maxLogins;
    }
}
