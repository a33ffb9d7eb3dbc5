package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.CmdSnWindow;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.PduFailure;
import io.numaiscsi.proto.RejectReason;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.login.SessionType;
import io.numaiscsi.proto.login.TextExchange;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.proto.transport.TransportEvents;
import io.numaiscsi.scsi.LogicalUnit;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One iSCSI connection, transport-agnostic: the login phase ({@link LoginPhase}), then the full feature phase
 * ({@link FullFeatureRequests}). Its transport drives it through {@link TransportEvents} and it answers through {@link IscsiTransport},
 * never asking which transport that is. Everything here runs on the connection's own thread
 * ({@link IscsiTransport#executor()}); other threads reach it only through that executor.
 */
public final class IscsiConnection implements TransportEvents {
    private static final Logger LOG = LoggerFactory.getLogger(IscsiConnection.class);
    private static final int RESERVED = ResponseWriter.RESERVED_TAG;

    enum Phase {
        LOGIN,
        FULL_FEATURE,
        LOGGED_OUT,
        CLOSING,
        CLOSED
    }

    private final IscsiTransport transport;
    private final SessionSettings settings;
    private final SessionTable sessions;
    private final ConnectionLogin login;
    private final ResponseWriter out;
    private final LongSupplier nanoClock;
    private final EventThreads eventThreads;
    private final EventThreadRegistry threadStats;
    private final ConnectionGuards guards;
    private final LoginGuard loginGuard;
    private final LoginPhase loginPhase;
    private Phase phase = Phase.LOGIN;
    private IscsiSession session;
    private SessionParameters params;
    private CmdSnWindow window;
    private FullFeatureRequests requests;
    private CommandFlow commands;
    private TaskManagement taskManagement;
    private Keepalive keepalive;

    public IscsiConnection(IscsiTransport transport, SessionServices services, LongSupplier nanoClock) {
        this.transport = transport;
        this.threadStats = services.threadStats();
        this.eventThreads = services.eventThreads();
        this.settings = services.settings();
        this.sessions = services.sessions();
        this.login = new ConnectionLogin(transport, settings, services.targets(), sessions);
        this.out = new ResponseWriter(transport);
        this.nanoClock = nanoClock;
        this.guards = services.guards();
        this.loginGuard = new LoginGuard(guards, settings.resources(), nanoClock, transport.remoteInetAddress());
        this.loginPhase = new LoginPhase(this, login, loginGuard);
    }

    /**
     * The transport accepted the connection and can close it: it takes a login slot (limits.max-logins,
     * limits.logins-per-address) or is closed at once.
     */
    @Override
    public void onOpen() {
        String refusal = loginGuard.admit();
        if (refusal != null) {
            if (PeerEventLogs.CONNECTION_REFUSALS.permit()) {
                LOG.warn("refusing connection from {}: {}", transport.remoteAddress(), refusal);
            }
            phase = Phase.CLOSED;
            transport.close();
        }
    }

    IscsiTransport transport() {
        return transport;
    }

    IscsiSession session() {
        return session;
    }

    SessionParameters parameters() {
        return params;
    }

    ResponseWriter out() {
        return out;
    }

    CmdSnWindow window() {
        return window;
    }

    CommandFlow commands() {
        return commands;
    }

    /** For the admin's listing, from any thread: a racy read, possibly a moment old. */
    int commandsInFlight() {
        CommandFlow c = commands;
        return c == null ? 0 : c.inFlight();
    }

    /** A complete PDU from the transport. Ownership passes here. */
    @Override
    public void onPdu(Pdu pdu) {
        try {
            if (keepalive != null) {
                keepalive.received();
            }
            switch (phase) {
                case LOGIN -> loginPhase.onPdu(pdu);
                case FULL_FEATURE -> requests.onPdu(pdu);
                default -> {}
            }
        } finally {
            pdu.release();
        }
    }

    /** The decoder gave up on the byte stream (RFC 7143: framing can no longer be trusted). */
    @Override
    public void onDecodeFailure(PduFailure failure, ByteBuf failedBhs) {
        if (phase == Phase.FULL_FEATURE && failedBhs != null && failure != PduFailure.HEADER_DIGEST_ERROR) {
            out.reject(RejectReason.PROTOCOL_ERROR.code(), failedBhs);
        }
        if (PeerEventLogs.REJECTED_PDUS.permit()) {
            LOG.warn("dropping connection from {}: {} ({})", transport.remoteAddress(), failure, describe(failedBhs));
        }
        close();
    }

    private String describe(ByteBuf bhs) {
        if (bhs == null) {
            return "no header";
        }
        return "opcode=0x" + Integer.toHexString(Bhs.opcode(bhs)) + " itt=0x"
                + Integer.toHexString(Bhs.initiatorTaskTag(bhs)) + " dataSegmentLength=" + Bhs.dataSegmentLength(bhs);
    }

    /** The transport's own transfer brought task {@code itt}'s data-out up to {@code end}. */
    @Override
    public void dataOutArrived(int itt, int end) {
        if (commands != null) {
            commands.dataOutArrived(itt, end);
        }
    }

    /** The transport's own transfer of task {@code itt}'s data-out failed; the connection is going down. */
    @Override
    public void dataOutFailed(int itt) {
        if (commands != null) {
            commands.dataOutFailed(itt);
        }
    }

    /** The transport closed (peer gone or we closed it). Runs once. */
    @Override
    public void onClosed() {
        if (phase == Phase.CLOSED) {
            return;
        }
        Phase was = phase;
        phase = Phase.CLOSED;
        loginGuard.release();
        if (requests != null) {
            requests.releaseHeld();
        }
        if (commands != null) {
            commands.abortAllOnClose();
        }
        IscsiSession s = session != null ? session : login.session();
        endSession(s);
        if (was == Phase.LOGIN && s == null) {
            LOG.debug("connection from {} closed during login", transport.remoteAddress());
        }
    }

    /**
     * The session's I_T nexus ends: its SPC-2 reservation and unit attentions go, and a write-back cache is flushed
     * when it was the target's last session. Once per session (a reinstated or already ended session is skipped).
     */
    private void endSession(IscsiSession s) {
        if (s != null && sessions.remove(s) && s.target() != null && s.nexus() != null) {
            s.target().scsi().nexusLost(s.nexus());
            if (sessions.sessionsOf(s.target().name()).isEmpty()) {
                flushTarget(s.target()); // the last session is gone: a write-back cache must not hold its data
            }
        }
    }

    private static void flushTarget(ExportedTarget target) {
        for (LogicalUnit unit : target.scsi().units()) {
            unit.device().flush(status -> {
                if (status != IoStatus.OK) {
                    LOG.error(
                            "flush of {} LUN {} after its last session failed: {}", target.name(), unit.lun(), status);
                }
            });
        }
    }

    /** Periodic keepalive check, scheduled by the transport on this connection's thread. */
    @Override
    public void onTick() {
        if (phase == Phase.LOGIN) {
            loginPhase.checkTimeouts();
            return;
        }
        if (phase != Phase.FULL_FEATURE || keepalive == null) {
            return;
        }
        if (commands != null) {
            IscsiCommand overdue = commands.overdueDataOut(
                    nanoClock.getAsLong(), settings.resources().dataOutTimeout().toNanos());
            if (overdue != null) {
                LOG.warn(
                        "dropping connection from {}: no Data-Out for ITT 0x{} in {} ms ({} of {} bytes received; "
                                + "limits.data-out-timeout)",
                        transport.remoteAddress(),
                        Integer.toHexString(overdue.itt),
                        settings.resources().dataOutTimeout().toMillis(),
                        overdue.received,
                        overdue.toCollect);
                close();
                return;
            }
        }
        switch (keepalive.tick()) {
            case PING -> {
                out.nopIn(0, RESERVED, keepalive.nextPingTag(), null);
                out.flush();
            }
            case DROP -> {
                LOG.warn(
                        "dropping connection from {}: no PDU for {} ms (NOP-In timeout {})",
                        transport.remoteAddress(),
                        keepalive.silentMillis(),
                        settings.nopInTimeout());
                close();
            }
            default -> {}
        }
    }

    void close() {
        transport.close();
    }

    /** The login ends unfinished: nothing more is processed, the slot goes back now, the connection closes. */
    void abandonLogin() {
        phase = Phase.CLOSING;
        loginGuard.release();
        close();
    }

    /**
     * Any thread: aborts this connection's commands on {@code lun} (all LUNs when negative) on its own thread.
     * {@code waiter} (may be null) waits for this connection's part, also when the connection's thread is gone.
     */
    void abortFromOtherThread(int lun, PendingTaskManagement waiter) {
        if (waiter != null) {
            waiter.add(1);
        }
        try {
            transport.executor().execute(() -> {
                if (commands != null) {
                    int waits = commands.abortAll(lun, waiter);
                    if (waiter != null) {
                        waiter.add(waits);
                    }
                }
                if (waiter != null) {
                    waiter.done();
                }
            });
        } catch (RejectedExecutionException closed) {
            // the connection's thread is gone, and its commands with it
            if (waiter != null) {
                waiter.done();
            }
        }
    }

    /** Any thread: close this connection on its own thread. */
    void closeFromOtherThread(String reason) {
        transport.executor().execute(() -> {
            LOG.info("closing connection from {}: {}", transport.remoteAddress(), reason);
            close();
        });
    }

    /**
     * Any thread: asks the initiator to log out within {@code seconds} (RFC 7143 11.9.1); the connection is closed
     * if it has not by then. A discovery session or a login still in progress is closed at once.
     */
    void requestLogoutFromOtherThread(int seconds, String reason) {
        try {
            transport.executor().execute(() -> requestLogout(seconds, reason));
        } catch (RejectedExecutionException gone) {
            // the connection's thread has stopped: the connection is closed already
        }
    }

    private void requestLogout(int seconds, String reason) {
        if (phase != Phase.FULL_FEATURE || session.type() == SessionType.DISCOVERY) {
            if (phase == Phase.LOGIN || phase == Phase.FULL_FEATURE) {
                LOG.info("closing connection from {}: {}", transport.remoteAddress(), reason);
                close();
            }
            return;
        }
        LOG.info(
                "asking {} (session tsih={}) at {} to log out within {} s: {}",
                params.initiatorName(),
                session.tsih(),
                transport.remoteAddress(),
                seconds,
                reason);
        out.logoutRequest(seconds);
        out.flush();
        transport
                .executor()
                .schedule(
                        () -> {
                            if (phase == Phase.FULL_FEATURE) {
                                LOG.warn(
                                        "closing connection from {}: {} did not log out within {} s of the request",
                                        transport.remoteAddress(),
                                        params.initiatorName(),
                                        seconds);
                                close();
                            }
                        },
                        seconds,
                        TimeUnit.SECONDS);
    }

    /** The login is done: the full feature phase starts. */
    void enterFullFeature() {
        loginGuard.release();
        params = login.parameters();
        session = login.session();
        session.attach(this);
        window = new CmdSnWindow(settings.queueDepth());
        window.start(login.loginCmdSN());
        out.startFullFeature(window, login.nextStatSN());
        transport.negotiated(params.targetMaxRecvDataSegmentLength(), params.headerDigest(), params.dataDigest());
        TextExchange textExchange = new TextExchange(params, login, transport.maxSendDataSegmentLength());
        if (session.type() == SessionType.NORMAL) {
            commands = new CommandFlow(
                    this,
                    session.target(),
                    threadStats,
                    nanoClock,
                    session.nexus(),
                    params,
                    settings.queueDepth(),
                    settings.resources(),
                    guards.buffers());
            taskManagement = new TaskManagement(this, sessions);
        }
        long interval = settings.nopInInterval().toNanos();
        long timeout = settings.nopInTimeout().toNanos();
        keepalive = new Keepalive(nanoClock, interval, timeout);
        requests = new FullFeatureRequests(this, window, commands, taskManagement, textExchange, keepalive);
        phase = Phase.FULL_FEATURE;
        LOG.info(
                "{} session tsih={} from {} ({}) to {}: MaxRecvDataSegmentLength out/in={}/{} MaxBurstLength={} "
                        + "FirstBurstLength={} ImmediateData={} InitialR2T={} digests={}/{}",
                params.sessionType(),
                session.tsih(),
                params.initiatorName(),
                transport.remoteAddress(),
                params.targetName() == null ? "discovery" : params.targetName(),
                params.initiatorMaxRecvDataSegmentLength(),
                params.targetMaxRecvDataSegmentLength(),
                params.maxBurstLength(),
                params.firstBurstLength(),
                params.immediateData(),
                params.initialR2T(),
                params.headerDigest() ? "CRC32C" : "None",
                params.dataDigest() ? "CRC32C" : "None");
        if (session.type() == SessionType.NORMAL) {
            transport.handOff(eventThreads.homeOf(session.target()));
        }
    }

    /** Whether the connection is still in its login phase (not closed meanwhile). */
    boolean inLogin() {
        return phase == Phase.LOGIN;
    }

    /** Whether the connection is in full feature phase (not logged out or closing). */
    boolean inFullFeature() {
        return phase == Phase.FULL_FEATURE;
    }

    /**
     * The initiator logged out: the nexus ends with the logout, not when the transport reports the close, since the
     * initiator may log in again, or another session send a command, before a ring-based transport delivers that close.
     */
    void loggedOut() {
        phase = Phase.LOGGED_OUT;
        endSession(session);
        transport.close();
    }

    /** The transport can take more output again: reads waiting for it may run. */
    @Override
    public void onWritable() {
        if (phase == Phase.FULL_FEATURE && commands != null) {
            commands.retryParked();
        }
    }

    /** Called by {@link PendingTaskManagement} on this thread. */
    void sendTaskManagementResponse(int itt, int response) {
        if (phase != Phase.FULL_FEATURE) {
            return;
        }
        out.taskManagementResponse(itt, response);
        out.flush();
    }
}
