package io.numaiscsi.config;

import java.time.Duration;

/**
 * The {@code limits:} section: what one daemon, one initiator, one source address and one connection may hold.
 *
 * @param maxSessions             sessions of the whole daemon, discovery sessions included
 * @param maxSessionsPerInitiator sessions of one initiator name (any ISID, any target)
 * @param writeBufferPerSession   bytes of Data-Out buffers one session (connection) may hold; further writes wait
 *                                for their R2Ts instead of failing
 * @param maxLogins               connections still in login, daemon-wide
 * @param loginsPerAddress        connections still in login from one source address
 * @param loginTimeout            time a connection has to complete its login
 * @param loginPduTimeout         time a connection in login may take to send its next complete PDU
 * @param dataOutTimeout          time a connection may leave solicited Data-Out unsent before it is dropped
 * @param dataInPerConnection     bytes of reads one connection may have in execution and queued unsent
 * @param bufferMemory            bytes of read and write data buffers of all connections together
 */
public record LimitsSettings(
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

    public static final LimitsSettings DEFAULT = new LimitsSettings(1024, 256, 64L << 20);

    public LimitsSettings {
        if (maxSessions < 1
                || maxSessionsPerInitiator < 1
                || writeBufferPerSession < 1
                || maxLogins < 1
                || loginsPerAddress < 1
                || dataInPerConnection < 1
                || bufferMemory < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }

    /** The session limits and write budget given, every other limit at its default. */
    public LimitsSettings(int maxSessions, int maxSessionsPerInitiator, long writeBufferPerSession) {
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

    /** These limits with another daemon-wide buffer budget. */
    public LimitsSettings withBufferMemory(long bytes) {
        return new LimitsSettings(
                maxSessions,
                maxSessionsPerInitiator,
                writeBufferPerSession,
                maxLogins,
                loginsPerAddress,
                loginTimeout,
                loginPduTimeout,
                dataOutTimeout,
                dataInPerConnection,
                bytes);
    }
}
