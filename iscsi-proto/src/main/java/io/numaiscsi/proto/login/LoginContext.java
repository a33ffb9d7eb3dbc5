package io.numaiscsi.proto.login;

import java.util.List;

/** Callbacks the daemon implements: target lookup, authorization and the session table. */
public interface LoginContext {
    /** The target of that name, or null if there is none. */
    TargetInfo findTarget(String targetName);

    boolean initiatorAllowed(TargetInfo target, String initiatorName);

    /**
     * Called once when the login completes, to bind the nexus: returns the TSIH to report (a new non-zero TSIH for
     * tsih==0, the existing one for a connection added to a session), or 0 to refuse (session does not exist / too
     * many connections). Session reinstatement (same initiator+ISID+target, tsih==0) is done by the daemon here.
     * targetName is null for discovery sessions.
     */
    int bindSession(SessionType type, String initiatorName, long isid, int tsih, int cid, String targetName);

    int targetPortalGroupTag();

    /** scope "All", a target name, or ""; returns TargetName / TargetAddress=host:port,tpgt pairs in order. */
    List<KeyValue> sendTargets(String initiatorName, String scope);
}
