package io.numaiscsi.session;

import io.numaiscsi.proto.login.SessionType;
import io.numaiscsi.scsi.ItNexus;

/**
 * One iSCSI session (I_T nexus). With MaxConnections=1 it has exactly one connection; the session
 * outlives nothing but keeps the identity used for reinstatement and reservations.
 */
public final class IscsiSession {
    private final SessionKey key;
    private final int tsih;
    private final SessionType type;
    private final ExportedTarget target;
    private final ItNexus nexus;
    private volatile IscsiConnection connection;

    IscsiSession(SessionKey key, int tsih, SessionType type, ExportedTarget target, int tpgt) {
        this.key = key;
        this.tsih = tsih;
        this.type = type;
        this.target = target;
        this.nexus = target == null ? null : new ItNexus(key.initiatorName(), key.isid(), target.name(), tpgt);
    }

    SessionKey key() {
        return key;
    }

    public int tsih() {
        return tsih;
    }

    SessionType type() {
        return type;
    }

    /** Null for discovery sessions. */
    ExportedTarget target() {
        return target;
    }

    ItNexus nexus() {
        return nexus;
    }

    IscsiConnection connection() {
        return connection;
    }

    void attach(IscsiConnection c) {
        this.connection = c;
    }

    /** Identity for reinstatement: same initiator, ISID and target means the same session (RFC 7143 6.3.5). */
    record SessionKey(String initiatorName, long isid, String targetName) {}
}
