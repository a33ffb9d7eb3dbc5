package io.numaiscsi.proto.login;

import io.numaiscsi.proto.LoginStatus;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The target side of one connection's login (RFC 7143 6.3, 11.12, 11.13): switches on CSG/NSG, negotiates the text
 * keys, returns MORE / DONE / FAIL per Login Request. Pure: no I/O, threads or clocks.
 */
public final class LoginStateMachine {
    static final int MAX_LOGIN_PDUS = 16;
    /** Login PDUs carry at most 8192 bytes of text: the default MaxRecvDataSegmentLength holds during login. */
    static final int LOGIN_SEGMENT_LIMIT = 8192;
    /** Cap on one request text reassembled from C-bit PDUs. */
    static final int MAX_REQUEST_TEXT = 65536;

    static final int SECURITY = 0;
    static final int OPERATIONAL = 1;
    static final int FULL_FEATURE = 3;
    private static final byte[] EMPTY = new byte[0];

    private final TargetLimits limits;
    private final LoginContext context;
    private final AuthPolicy authPolicy;
    private final Negotiation negotiation;
    /** The AuthMethods of this login, chosen by the policy once the initiator and target are known. */
    private List<Authenticator> authenticators = List.of();

    private int pdus;
    private boolean started;
    private long isid;
    private int tsih;
    private int cid;
    private int cmdSN;
    /** The CSG the next request must carry; -1 before the first (security or operational). */
    private int expectedStage = -1;

    private ByteArrayOutputStream requestText;
    private byte[] pendingResponse;
    private int pendingOffset;
    private LoginStep pendingLast;
    private boolean identified;
    private boolean mrdslDeclared;
    private SessionType sessionType;
    private String initiatorName;
    private TargetInfo target;
    private Authenticator authenticator;
    private AuthVerdict authState;
    private boolean finished;
    private SessionParameters parameters;

    /** A login that accepts AuthMethod=None only. */
    public LoginStateMachine(TargetLimits limits, LoginContext context) {
        this(limits, context, List.of(Authenticator.none()));
    }

    /** A login offering these AuthMethods; without {@link Authenticator#none()} among them authentication is required. */
    public LoginStateMachine(TargetLimits limits, LoginContext context, List<Authenticator> authenticators) {
        this(limits, context, AuthPolicy.fixed(nonEmpty(authenticators)));
    }

    /** A login whose AuthMethods the policy picks per initiator and target (CHAP for a protected target). */
    public LoginStateMachine(TargetLimits limits, LoginContext context, AuthPolicy authPolicy) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.context = Objects.requireNonNull(context, "context");
        this.authPolicy = Objects.requireNonNull(authPolicy, "authPolicy");
        this.negotiation = new Negotiation(limits);
    }

    private static List<Authenticator> nonEmpty(List<Authenticator> authenticators) {
        if (authenticators.isEmpty()) {
            throw new IllegalArgumentException("no authenticator");
        }
        return authenticators;
    }

    /** The negotiated parameters; valid once a step returned DONE, null before. */
    public SessionParameters parameters() {
        return finished && pendingResponse == null ? parameters : null;
    }

    /** The InitiatorName of the first request, or null before it (or when it had none). */
    public String initiatorName() {
        return initiatorName;
    }

    public LoginStep onRequest(LoginRequest request) {
        if (finished && pendingResponse == null) {
            return fail(request, LoginFailure.initiatorError("Login Request after the login ended"));
        }
        if (++pdus > MAX_LOGIN_PDUS) {
            return fail(request, LoginFailure.initiatorError("more than " + MAX_LOGIN_PDUS + " login PDUs"));
        }
        LoginFailure failure = checkHeader(request);
        if (failure != null) {
            return fail(request, failure);
        }
        if (pendingResponse != null) {
            if (request.data().length != 0 || request.continueBit()) {
                return fail(request, LoginFailure.initiatorError("keys sent while the target's response continues"));
            }
            return nextChunk();
        }
        if (requestText == null) {
            requestText = new ByteArrayOutputStream();
        }
        requestText.writeBytes(request.data());
        if (requestText.size() > MAX_REQUEST_TEXT) {
            return fail(request, LoginFailure.initiatorError("login text over " + MAX_REQUEST_TEXT + " bytes"));
        }
        if (request.continueBit()) {
            expectedStage = request.csg();
            return new LoginStep(
                    LoginVerdict.MORE, LoginStatus.SUCCESS, false, false, request.csg(), 0, tsih, EMPTY, null);
        }
        byte[] text = requestText.toByteArray();
        requestText = null;
        List<KeyValue> keys;
        try {
            keys = TextParameters.parse(text, 0, text.length);
        } catch (TextFormatException e) {
            return fail(request, LoginFailure.initiatorError("bad login text: " + e.getMessage()));
        }
        List<KeyValue> response = new ArrayList<>();
        failure = identified ? checkSessionType(keys) : identify(keys, response);
        if (failure == null) {
            failure = negotiation.process(keys, request.csg(), response);
        }
        if (failure != null) {
            return fail(request, failure);
        }
        return request.csg() == SECURITY ? securityStage(request, response) : operationalStage(request, response);
    }

    private LoginFailure checkHeader(LoginRequest request) {
        if (!started) {
            started = true;
            if (request.versionMin() != 0) {
                return new LoginFailure(
                        LoginStatus.UNSUPPORTED_VERSION,
                        "version-min " + request.versionMin() + ", target supports 0x00 only");
            }
            isid = request.isid();
            tsih = request.tsih();
            cid = request.cid();
            cmdSN = request.cmdSN();
            negotiation.leading(tsih == 0);
        } else if (request.isid() != isid || request.tsih() != tsih || request.cid() != cid) {
            return LoginFailure.initiatorError("ISID/TSIH/CID changed within the login");
        }
        int csg = request.csg();
        if (csg != SECURITY && csg != OPERATIONAL) {
            return LoginFailure.initiatorError("CSG " + csg + " is not a login stage");
        }
        if (expectedStage >= 0 && csg != expectedStage) {
            return LoginFailure.initiatorError("CSG " + csg + " where stage " + expectedStage + " was agreed");
        }
        if (request.transit() && request.continueBit()) {
            return LoginFailure.initiatorError("T and C both set");
        }
        if (request.transit()
                && (request.nsg() <= csg || (request.nsg() != OPERATIONAL && request.nsg() != FULL_FEATURE))) {
            return LoginFailure.initiatorError("transit from stage " + csg + " to NSG " + request.nsg());
        }
        return null;
    }

    /** The first complete request text: who logs in to what (RFC 7143 13.4, 13.5, 13.21). */
    private LoginFailure identify(List<KeyValue> keys, List<KeyValue> response) {
        identified = true;
        String type = find(keys, TextKey.SESSION_TYPE);
        if (type == null || "Normal".equals(type)) {
            sessionType = SessionType.NORMAL;
        } else if ("Discovery".equals(type)) {
            sessionType = SessionType.DISCOVERY;
        } else {
            return new LoginFailure(LoginStatus.SESSION_TYPE_NOT_SUPPORTED, "SessionType=" + type);
        }
        negotiation.sessionType(sessionType);
        initiatorName = find(keys, TextKey.INITIATOR_NAME);
        if (initiatorName == null || initiatorName.isEmpty()) {
            return new LoginFailure(LoginStatus.MISSING_PARAMETER, "no InitiatorName in the first login request");
        }
        if (sessionType == SessionType.DISCOVERY) {
            return chooseAuthMethods();
        }
        String targetName = find(keys, TextKey.TARGET_NAME);
        if (targetName == null || targetName.isEmpty()) {
            return new LoginFailure(
                    LoginStatus.MISSING_PARAMETER, "no TargetName in the first login request of a normal session");
        }
        target = context.findTarget(targetName);
        if (target == null) {
            // Same status as "not allowed" (02/02), so an unauthenticated peer cannot probe for target names;
            // the real reason goes to the target's log.
            return new LoginFailure(LoginStatus.AUTHORIZATION_FAILURE, "no target " + targetName);
        }
        if (!context.initiatorAllowed(target, initiatorName)) {
            return new LoginFailure(
                    LoginStatus.AUTHORIZATION_FAILURE, initiatorName + " may not log in to " + targetName);
        }
        // RFC 7143 13.9: TargetPortalGroupTag in the first response of a normal session.
        if (target.alias() != null && !target.alias().isEmpty()) {
            response.add(new KeyValue(TextKey.TARGET_ALIAS.wireName(), target.alias()));
        }
        response.add(new KeyValue(
                TextKey.TARGET_PORTAL_GROUP_TAG.wireName(), Integer.toString(context.targetPortalGroupTag())));
        return chooseAuthMethods();
    }

    private LoginFailure chooseAuthMethods() {
        authenticators = List.copyOf(authPolicy.authenticators(sessionType, initiatorName, target));
        List<String> methods = new ArrayList<>(authenticators.size());
        for (Authenticator a : authenticators) {
            methods.add(a.method());
        }
        negotiation.authMethods(methods);
        return null;
    }

    private LoginFailure checkSessionType(List<KeyValue> keys) {
        String type = find(keys, TextKey.SESSION_TYPE);
        if (type != null && !type.equals(sessionType == SessionType.NORMAL ? "Normal" : "Discovery")) {
            return LoginFailure.initiatorError("SessionType changed to " + type + " within the login");
        }
        return null;
    }

    private LoginStep securityStage(LoginRequest request, List<KeyValue> response) {
        String chosen = negotiation.authMethodAnswer();
        if (chosen != null) {
            if (KeyRules.REJECT.equals(chosen)) {
                return fail(request, new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "no AuthMethod in common"));
            }
            authenticator = authenticatorFor(chosen);
            authState = authenticator.start(initiatorName, target != null ? target.name() : null, response);
        }
        List<KeyValue> authKeys = negotiation.takeAuthKeys();
        if (!authKeys.isEmpty()) {
            if (authenticator == null || authState != AuthVerdict.CONTINUE) {
                return fail(
                        request,
                        new LoginFailure(
                                LoginStatus.AUTHENTICATION_FAILURE,
                                "security key " + authKeys.get(0).key() + " outside an authentication exchange"));
            }
            authState = authenticator.onKeys(authKeys, response);
        }
        if (authState == AuthVerdict.FAIL) {
            String detail = authenticator.failureDetail();
            return fail(
                    request,
                    new LoginFailure(
                            LoginStatus.AUTHENTICATION_FAILURE,
                            "authentication (" + authenticator.method() + ") of " + initiatorName + " failed"
                                    + (detail == null ? "" : ": " + detail)));
        }
        if (!request.transit()) {
            return respond(LoginVerdict.MORE, false, SECURITY, 0, tsih, response);
        }
        if (authState == null) {
            if (!noneAllowed()) {
                return fail(request, authenticationRequired());
            }
            authState = AuthVerdict.SUCCESS;
        }
        if (authState == AuthVerdict.CONTINUE) {
            return respond(LoginVerdict.MORE, false, SECURITY, 0, tsih, response); // not yet: the exchange goes on
        }
        if (request.nsg() == OPERATIONAL || negotiation.makeOffers(response, true) > 0) {
            return respond(LoginVerdict.MORE, true, SECURITY, OPERATIONAL, tsih, response);
        }
        return finish(request, response);
    }

    private LoginStep operationalStage(LoginRequest request, List<KeyValue> response) {
        if (authState != AuthVerdict.SUCCESS) {
            if (!noneAllowed()) {
                return fail(request, authenticationRequired());
            }
            authState = AuthVerdict.SUCCESS;
        }
        declareLimits(response);
        if (!request.transit()) {
            return respond(LoginVerdict.MORE, false, OPERATIONAL, 0, tsih, response);
        }
        negotiation.makeOffers(response, false);
        if (negotiation.hasPendingOffers()) {
            return respond(LoginVerdict.MORE, false, OPERATIONAL, 0, tsih, response);
        }
        return finish(request, response);
    }

    private LoginStep finish(LoginRequest request, List<KeyValue> response) {
        declareLimits(response);
        String outside = TargetLimitCheck.outside(limits, negotiation, sessionType);
        if (outside != null) {
            return fail(request, LoginFailure.initiatorError(outside));
        }
        if (sessionType == SessionType.NORMAL) {
            long first = KeyRules.parseNumber(negotiation.value(TextKey.FIRST_BURST_LENGTH));
            long max = KeyRules.parseNumber(negotiation.value(TextKey.MAX_BURST_LENGTH));
            if (first > max) {
                return fail(
                        request,
                        LoginFailure.initiatorError("FirstBurstLength " + first + " exceeds MaxBurstLength " + max));
            }
        }
        String targetName = target != null ? target.name() : null;
        int assigned = context.bindSession(sessionType, initiatorName, isid, tsih, cid, targetName);
        if (assigned == 0) {
            return fail(
                    request,
                    tsih != 0
                            ? new LoginFailure(
                                    LoginStatus.SESSION_DOES_NOT_EXIST,
                                    "session tsih=" + tsih + " cannot take connection cid=" + cid)
                            : new LoginFailure(LoginStatus.OUT_OF_RESOURCES, "no session for " + initiatorName));
        }
        parameters = new SessionParameters(
                sessionType,
                initiatorName,
                targetName,
                isid,
                assigned,
                cid,
                limits.maxRecvDataSegmentLength(),
                negotiation.values(),
                cmdSN);
        finished = true;
        return respond(LoginVerdict.DONE, true, request.csg(), FULL_FEATURE, assigned, response);
    }

    /**
     * RFC 7143 13.12: the target always declares its MaxRecvDataSegmentLength, once; with RDMAExtensions=Yes also
     * the iSER keys (RFC 7145 6). MaxRecvDataSegmentLength stays declared under iSER (open-iscsi ignores it there and
     * takes TargetRecvDataSegmentLength, which carries the same value unless the initiator asked for less).
     */
    private void declareLimits(List<KeyValue> response) {
        if (!mrdslDeclared) {
            mrdslDeclared = true;
            response.add(new KeyValue(
                    TextKey.MAX_RECV_DATA_SEGMENT_LENGTH.wireName(),
                    Integer.toString(limits.maxRecvDataSegmentLength())));
        }
        negotiation.declareIserKeys(response);
    }

    /** Sends the response, split with the C bit (and T=0) when its text exceeds one login PDU. */
    private LoginStep respond(
            LoginVerdict verdict, boolean transit, int csg, int nsg, int responseTsih, List<KeyValue> response) {
        byte[] data = TextParameters.encode(response);
        if (data.length <= LOGIN_SEGMENT_LIMIT) {
            expectedStage = transit ? nsg : csg;
            return new LoginStep(
                    verdict, LoginStatus.SUCCESS, transit, false, csg, transit ? nsg : 0, responseTsih, data, null);
        }
        expectedStage = csg; // the continued pieces go out with T=0
        pendingResponse = data;
        pendingOffset = 0;
        pendingLast = new LoginStep(
                verdict, LoginStatus.SUCCESS, transit, false, csg, transit ? nsg : 0, responseTsih, null, null);
        return nextChunk();
    }

    private LoginStep nextChunk() {
        int length = Math.min(LOGIN_SEGMENT_LIMIT, pendingResponse.length - pendingOffset);
        byte[] chunk = Arrays.copyOfRange(pendingResponse, pendingOffset, pendingOffset + length);
        pendingOffset += length;
        if (pendingOffset < pendingResponse.length) {
            return new LoginStep(
                    LoginVerdict.MORE, LoginStatus.SUCCESS, false, true, pendingLast.csg(), 0, tsih, chunk, null);
        }
        LoginStep last = pendingLast;
        expectedStage = last.transit() ? last.nsg() : last.csg();
        pendingResponse = null;
        pendingLast = null;
        return new LoginStep(
                last.verdict(),
                LoginStatus.SUCCESS,
                last.transit(),
                false,
                last.csg(),
                last.nsg(),
                last.tsih(),
                chunk,
                null);
    }

    private LoginStep fail(LoginRequest request, LoginFailure failure) {
        finished = true;
        pendingResponse = null;
        parameters = null;
        int csg = request.csg() == SECURITY || request.csg() == OPERATIONAL ? request.csg() : 0;
        return new LoginStep(
                LoginVerdict.FAIL, failure.status(), false, false, csg, 0, request.tsih(), EMPTY, failure.reason());
    }

    private boolean noneAllowed() {
        for (Authenticator a : authenticators) {
            if ("None".equals(a.method())) {
                return true;
            }
        }
        return false;
    }

    private static LoginFailure authenticationRequired() {
        return new LoginFailure(
                LoginStatus.AUTHENTICATION_FAILURE, "authentication required, AuthMethod None not allowed");
    }

    private Authenticator authenticatorFor(String method) {
        for (Authenticator a : authenticators) {
            if (a.method().equals(method)) {
                return a;
            }
        }
        throw new IllegalStateException("AuthMethod " + method + " chosen without an authenticator");
    }

    private static String find(List<KeyValue> keys, TextKey key) {
        for (KeyValue kv : keys) {
            if (kv.key().equals(key.wireName())) {
                return kv.value();
            }
        }
        return null;
    }
}
