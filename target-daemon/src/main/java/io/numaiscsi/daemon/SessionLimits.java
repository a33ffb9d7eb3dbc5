package io.numaiscsi.daemon;

import io.netty.util.internal.PlatformDependent;
import io.numaiscsi.config.IscsiSettings;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.proto.login.TargetLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The session layer's limits from the config: the iSCSI keys' bounds, the resource limits and the buffer budget. */
final class SessionLimits {
    private static final Logger LOG = LoggerFactory.getLogger(TargetDaemon.class);

    private SessionLimits() {}

    /** The bounds a login negotiates within, from the config's {@code iscsi} section. */
    static TargetLimits targetLimits(IscsiSettings iscsi) {
        return new TargetLimits(
                iscsi.maxRecvDataSegmentLength(),
                iscsi.maxBurstLength(),
                iscsi.firstBurstLength(),
                iscsi.maxOutstandingR2T(),
                iscsi.immediateData(),
                iscsi.initialR2T(),
                iscsi.headerDigests(),
                iscsi.dataDigests(),
                iscsi.defaultTime2Wait(),
                iscsi.defaultTime2Retain(),
                false,
                0);
    }

    /** Logs the limits in force once, at start. */
    static void log(LimitsSettings resources, TargetConfig config) {
        LOG.info(
                "limits: {} sessions, {} per initiator; {} connections in login, {} per source address, login "
                        + "timeout {} ms ({} ms per PDU); buffers: {} bytes daemon-wide (direct memory ceiling {} bytes), "
                        + "{} of writes and {} of reads per connection, Data-Out timeout {} ms; discovery {}; {} "
                        + "initiators with their own CHAP",
                resources.maxSessions(),
                resources.maxSessionsPerInitiator(),
                resources.maxLogins(),
                resources.loginsPerAddress(),
                resources.loginTimeout().toMillis(),
                resources.loginPduTimeout().toMillis(),
                resources.bufferMemory(),
                PlatformDependent.maxDirectMemory(),
                resources.writeBufferPerSession(),
                resources.dataInPerConnection(),
                resources.dataOutTimeout().toMillis(),
                config.discoveryChap() == null ? "open" : "needs CHAP",
                config.initiators().size());
    }

    /** The limits of {@code l}, the buffer budget capped by the JVM's direct memory. */
    static LimitsSettings resources(LimitsSettings l) {
        return l.withBufferMemory(bufferMemory(l.bufferMemory()));
    }

    /** The configured buffer budget, at most half of the JVM's direct memory (the rest: Netty's pools, PDUs). */
    private static long bufferMemory(long configured) {
        long ceiling = PlatformDependent.maxDirectMemory();
        long budget = Math.min(configured, Math.max(16L << 20, ceiling / 2));
        if (budget < configured) {
            LOG.warn(
                    "limits.buffer-memory {} bytes is more than half of the JVM's direct memory ceiling {} bytes: "
                            + "using {} (raise -XX:MaxDirectMemorySize to allow more)",
                    configured,
                    ceiling,
                    budget);
        }
        return budget;
    }
}
