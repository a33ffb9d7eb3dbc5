package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.numaiscsi.proto.LoginRequestHeader;
import io.numaiscsi.proto.LoginResponseHeader;
import io.numaiscsi.proto.LoginStatus;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.login.AuthPolicy;
import io.numaiscsi.proto.login.Authenticator;
import io.numaiscsi.proto.login.ChapAuthenticator;
import io.numaiscsi.proto.login.KeyValue;
import io.numaiscsi.proto.login.LoginContext;
import io.numaiscsi.proto.login.LoginRequest;
import io.numaiscsi.proto.login.LoginStateMachine;
import io.numaiscsi.proto.login.LoginStep;
import io.numaiscsi.proto.login.LoginVerdict;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.login.SessionType;
import io.numaiscsi.proto.login.TargetInfo;
import io.numaiscsi.proto.transport.IscsiTransport;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The login phase of one connection: feeds Login Request PDUs to the pure state machine, answers
 * with Login Responses, and binds the session when the machine says DONE. Owns the connection's
 * StatSN until full feature phase starts. Enforces the access lists (initiator name, source network), picks the
 * AuthMethods (CHAP where the config has credentials for the login) and the session limits.
 */
final class ConnectionLogin implements LoginContext, AuthPolicy {
    /** CHAP challenges and identifiers; SecureRandom is thread-safe and costly to seed, so one per daemon. */
    private static final SecureRandom RANDOM = new SecureRandom();

    private final IscsiTransport transport;
    private final SessionSettings settings;
    private final TargetDirectory targets;
    private final SessionTable sessions;
    private final LoginStateMachine machine;
    private final LoginRequestHeader request = new LoginRequestHeader();
    private final LoginResponseHeader response = new LoginResponseHeader();
    private int statSN = 1;
    private boolean first = true;
    private int loginCmdSN;
    private IscsiSession boundSession;
    private String failureReason;
    private boolean failureGuessed;
    private LoginRequest pendingRequest;
    private LoginStep pendingStep;
    /** The daemon's own reason for a refusal it caused (access list, session limit), more precise than the machine's. */
    private String denial;
    /** The TPGT of the target the login names (its ALUA port), the daemon's until a target is found. */
    private int portalGroupTag;

    ConnectionLogin(
            IscsiTransport transport, SessionSettings settings, TargetDirectory targets, SessionTable sessions) {
        this.transport = transport;
        this.settings = settings;
        this.targets = targets;
        this.sessions = sessions;
        this.portalGroupTag = settings.targetPortalGroupTag();
        this.machine = new LoginStateMachine(settings.limits(), this, this);
    }

    /** Handles one Login Request and holds its response for {@link #respond()}; returns the verdict. */
    LoginVerdict onLoginRequest(Pdu pdu) {
        request.wrap(pdu.bhs());
        byte[] text = pdu.data() == null ? new byte[0] : ByteBufUtil.getBytes(pdu.data());
        if (first) {
            loginCmdSN = request.cmdSN();
            first = false;
        }
        LoginRequest req = new LoginRequest(
                request.transit(),
                request.continueBit(),
                request.csg(),
                request.nsg(),
                request.versionMax(),
                request.versionMin(),
                request.isid(),
                request.tsih(),
                request.cid(),
                request.cmdSN(),
                request.expStatSN(),
                request.initiatorTaskTag(),
                text);
        LoginStep step = machine.onRequest(req);
        if (step.verdict() == LoginVerdict.FAIL) {
            failureReason = denial != null ? denial : step.reason();
            failureGuessed = step.status() == LoginStatus.AUTHENTICATION_FAILURE
                    || step.status() == LoginStatus.AUTHORIZATION_FAILURE;
        }
        pendingRequest = req;
        pendingStep = step;
        return step.verdict();
    }

    /** Writes the response to the last request (not flushed); the caller decides when: a throttled answer waits. */
    void respond() {
        if (pendingStep != null) {
            sendResponse(pendingRequest, pendingStep);
            pendingRequest = null;
            pendingStep = null;
        }
    }

    /** The login failed on a secret, a name or an access list: what a guesser would try again. */
    boolean failureCountsAsGuess() {
        return failureGuessed;
    }

    /** The InitiatorName the login declared, or null before the first request named one. */
    String initiatorName() {
        return machine.initiatorName();
    }

    private void sendResponse(LoginRequest req, LoginStep step) {
        ByteBuf bhs = transport.alloc().buffer(Pdu.BHS_LENGTH, Pdu.BHS_LENGTH).writeZero(Pdu.BHS_LENGTH);
        response.wrap(bhs)
                .init()
                .transit(step.transit())
                .continueBit(step.continueBit())
                .csg(step.csg())
                .nsg(step.nsg())
                .versionMax(0)
                .versionActive(0)
                .isid(req.isid())
                .tsih(step.tsih())
                .initiatorTaskTag(req.initiatorTaskTag())
                .statSN(statSN++)
                .expCmdSN(loginCmdSN)
                .maxCmdSN(loginCmdSN + settings.queueDepth() - 1)
                .status(step.status());
        ByteBuf data = step.data() == null || step.data().length == 0 ? null : Unpooled.wrappedBuffer(step.data());
        transport.sendPdu(bhs, data);
    }

    SessionParameters parameters() {
        return machine.parameters();
    }

    IscsiSession session() {
        return boundSession;
    }

    int nextStatSN() {
        return statSN;
    }

    int loginCmdSN() {
        return loginCmdSN;
    }

    String failureReason() {
        return failureReason;
    }

    // LoginContext: what the state machine asks of the daemon.

    @Override
    public TargetInfo findTarget(String targetName) {
        ExportedTarget t = targets.find(targetName);
        if (t != null) {
            portalGroupTag = t.targetPortalGroupTag(settings.targetPortalGroupTag());
        }
        return t == null ? null : new TargetInfo(t.name(), t.alias());
    }

    @Override
    public boolean initiatorAllowed(TargetInfo target, String initiatorName) {
        ExportedTarget t = targets.find(target.name());
        if (t == null) {
            return false;
        }
        if (!t.allows(initiatorName)) {
            denial = "authorization failure (02/02): " + initiatorName + " is not in the allow list of " + t.name();
            return false;
        }
        InetAddress from = transport.remoteInetAddress();
        if (!t.allowsAddress(from)) {
            denial = "authorization failure (02/02): " + initiatorName + " from " + transport.remoteAddress()
                    + " is outside the allow-networks " + t.allowNetworks() + " of " + t.name();
            return false;
        }
        return true;
    }

    @Override
    public List<Authenticator> authenticators(SessionType type, String initiatorName, TargetInfo target) {
        ExportedTarget t = target == null ? null : targets.find(target.name());
        ChapAccount account = settings.chapAccounts().forLogin(type, initiatorName, t);
        if (account == null) {
            return List.of(Authenticator.none());
        }
        return List.of(new ChapAuthenticator(account.initiator(), account.target(), RANDOM));
    }

    @Override
    public int bindSession(SessionType type, String initiatorName, long isid, int tsih, int cid, String targetName) {
        if (tsih != 0) {
            // Adding a connection to an existing session: MaxConnections is 1, so there is nothing to add to.
            return 0;
        }
        ExportedTarget target = type == SessionType.NORMAL ? targets.find(targetName) : null;
        boundSession = sessions.create(
                type,
                initiatorName,
                isid,
                target,
                target == null
                        ? settings.targetPortalGroupTag()
                        : target.targetPortalGroupTag(settings.targetPortalGroupTag()));
        if (boundSession == null) {
            denial = "out of resources (03/02): " + sessions.limitReport(initiatorName);
            return 0;
        }
        return boundSession.tsih();
    }

    @Override
    public int targetPortalGroupTag() {
        return portalGroupTag;
    }

    @Override
    public List<KeyValue> sendTargets(String initiatorName, String scope) {
        return SendTargets.answer(
                targets, settings, transport.localAddress(), transport.remoteInetAddress(), initiatorName, scope);
    }

    static final class SendTargets {
        private SendTargets() {}

        /** The targets this initiator, at {@code from}, may log in to: both access lists admit it. */
        static List<KeyValue> answer(
                TargetDirectory targets,
                SessionSettings settings,
                String localAddress,
                InetAddress from,
                String initiatorName,
                String scope) {
            List<KeyValue> out = new ArrayList<>();
            for (ExportedTarget t : targets.all()) {
                boolean inScope = scope.equals("All") || scope.equals(t.name()) || scope.isEmpty();
                if (!inScope || !t.allows(initiatorName) || !t.allowsAddress(from)) {
                    continue;
                }
                out.add(new KeyValue("TargetName", t.name()));
                for (String portal : settings.portalAddresses()) {
                    String address = isWildcard(portal) ? localAddress : portal;
                    out.add(new KeyValue(
                            "TargetAddress", address + "," + t.targetPortalGroupTag(settings.targetPortalGroupTag())));
                }
            }
            return out;
        }

        private static boolean isWildcard(String portal) {
            return portal.startsWith("0.0.0.0:") || portal.startsWith("[::]:");
        }
    }
}
