package io.numaiscsi.session;

import io.numaiscsi.config.AccessList;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.login.SessionType;
import io.numaiscsi.scsi.ItNexus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All sessions of the daemon: TSIH allocation, reinstatement of a session whose initiator logs in
 * again with the same ISID, and lookup of the sessions of a target (for LUN and target resets).
 * Touched only at login, logout and reset: a plain lock is fine.
 */
public final class SessionTable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionTable.class);

    private final Map<IscsiSession.SessionKey, IscsiSession> byKey = new HashMap<>();
    private final Map<Integer, IscsiSession> byTsih = new HashMap<>();
    private final int maxSessions;
    private final int maxSessionsPerInitiator;
    private int nextTsih = 1;

    /** A table without limits beyond the 65535 TSIHs. */
    public SessionTable() {
        this(0xffff, 0xffff);
    }

    /** A table admitting at most {@code maxSessions} sessions, {@code maxSessionsPerInitiator} of one initiator name. */
    public SessionTable(int maxSessions, int maxSessionsPerInitiator) {
        if (maxSessions < 1 || maxSessionsPerInitiator < 1) {
            throw new IllegalArgumentException("session limits must be positive");
        }
        this.maxSessions = maxSessions;
        this.maxSessionsPerInitiator = maxSessionsPerInitiator;
    }

    /**
     * Creates a session, reinstating (closing) an existing one with the same key. Returns null, changing nothing,
     * when a new session would exceed the daemon's or the initiator's session limit (a reinstatement never does).
     */
    synchronized IscsiSession create(
            SessionType type, String initiatorName, long isid, ExportedTarget target, int tpgt) {
        // RFC 3722: iSCSI names are case-insensitive; an upper-case variant of a name is the same initiator.
        IscsiSession.SessionKey key = new IscsiSession.SessionKey(
                AccessList.normalizedName(initiatorName), isid, target == null ? "" : target.name());
        boolean full = byKey.size() >= maxSessions || sessionsOfInitiator(initiatorName) >= maxSessionsPerInitiator;
        if (full && !byKey.containsKey(key)) {
            return null;
        }
        IscsiSession old = byKey.remove(key);
        if (old != null) {
            byTsih.remove(old.tsih());
            LOG.info(
                    "reinstating session tsih={} of {} isid={}: closing the old connection",
                    old.tsih(),
                    initiatorName,
                    Long.toHexString(isid));
            // The reinstated session's I_T nexus is lost now, before the new session can run a command
            // (its SPC-2 reservation must not survive into, or be released out from under, the new one).
            if (old.target() != null && old.nexus() != null) {
                old.target().scsi().nexusLost(old.nexus());
            }
            IscsiConnection oldConnection = old.connection();
            if (oldConnection != null) {
                oldConnection.closeFromOtherThread("session reinstated by a new login with the same ISID");
            }
        }
        int tsih = allocateTsih();
        IscsiSession s = new IscsiSession(key, tsih, type, target, tpgt);
        byKey.put(key, s);
        byTsih.put(tsih, s);
        return s;
    }

    private int sessionsOfInitiator(String initiatorName) {
        int n = 0;
        String name = AccessList.normalizedName(initiatorName);
        for (IscsiSession.SessionKey k : byKey.keySet()) {
            if (k.initiatorName().equals(name)) {
                n++;
            }
        }
        return n;
    }

    /** Why {@link #create} refused this initiator, for the log. */
    synchronized String limitReport(String initiatorName) {
        return "session limit reached: " + initiatorName + " holds " + sessionsOfInitiator(initiatorName)
                + " of at most "
                + maxSessionsPerInitiator + " sessions per initiator, the daemon " + byKey.size() + " of at most "
                + maxSessions;
    }

    private int allocateTsih() {
        for (int i = 0; i < 0xffff; i++) {
            int candidate = nextTsih;
            nextTsih = nextTsih == 0xffff ? 1 : nextTsih + 1;
            if (!byTsih.containsKey(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no free TSIH: 65535 sessions open");
    }

    synchronized IscsiSession byTsih(int tsih) {
        return byTsih.get(tsih);
    }

    /**
     * Removes the session if it is still the registered one (a reinstated session must not remove its
     * successor). Returns false when it was already gone, e.g. reinstated.
     */
    synchronized boolean remove(IscsiSession s) {
        boolean registered = byKey.get(s.key()) == s;
        if (registered) {
            byKey.remove(s.key());
        }
        if (byTsih.get(s.tsih()) == s) {
            byTsih.remove(s.tsih());
        }
        return registered;
    }

    synchronized List<IscsiSession> sessionsOf(String targetName) {
        List<IscsiSession> out = new ArrayList<>();
        for (IscsiSession s : byKey.values()) {
            if (s.target() != null && s.target().name().equals(targetName)) {
                out.add(s);
            }
        }
        return out;
    }

    /** The session of an I_T nexus, or null when it has gone. */
    synchronized IscsiSession byNexus(ItNexus nexus) {
        for (IscsiSession s : byKey.values()) {
            if (nexus.equals(s.nexus())) {
                return s;
            }
        }
        return null;
    }

    /** Every session as an administrator lists it, in TSIH order. */
    public synchronized List<SessionInfo> describe() {
        List<SessionInfo> out = new ArrayList<>();
        for (IscsiSession s : byKey.values()) {
            out.add(info(s));
        }
        out.sort(Comparator.comparingInt(SessionInfo::tsih));
        return out;
    }

    /**
     * Asks the initiators of the sessions {@code which} selects to log out within {@code seconds}, closing the
     * connections of those that do not (see {@link IscsiConnection#requestLogoutFromOtherThread}). Returns how many
     * were asked.
     */
    public int requestLogout(Predicate<SessionInfo> which, int seconds, String reason) {
        int asked = 0;
        for (IscsiConnection c : connectionsOf(which)) {
            c.requestLogoutFromOtherThread(seconds, reason);
            asked++;
        }
        return asked;
    }

    /** Closes the connections of the sessions {@code which} selects now. Returns how many. */
    public int drop(Predicate<SessionInfo> which, String reason) {
        int dropped = 0;
        for (IscsiConnection c : connectionsOf(which)) {
            c.closeFromOtherThread(reason);
            dropped++;
        }
        return dropped;
    }

    private synchronized List<IscsiConnection> connectionsOf(Predicate<SessionInfo> which) {
        List<IscsiConnection> out = new ArrayList<>();
        for (IscsiSession s : byKey.values()) {
            IscsiConnection c = s.connection();
            if (c != null && which.test(info(s))) {
                out.add(c);
            }
        }
        return out;
    }

    /** Waits until no session is left or {@code timeout} has passed; true when none is left. */
    public boolean awaitNoSessions(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (size() > 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    private static SessionInfo info(IscsiSession s) {
        IscsiConnection c = s.connection();
        SessionParameters p = c == null ? null : c.parameters();
        return new SessionInfo(
                s.tsih(),
                s.type() == SessionType.DISCOVERY ? "Discovery" : "Normal",
                p == null ? s.key().initiatorName() : p.initiatorName(),
                s.key().isid(),
                s.key().targetName(),
                c == null ? "" : c.transport().remoteAddress(),
                p,
                c == null ? 0 : c.commandsInFlight());
    }

    public synchronized List<IscsiSession> all() {
        return new ArrayList<>(byKey.values());
    }

    public synchronized int size() {
        return byKey.size();
    }
}
