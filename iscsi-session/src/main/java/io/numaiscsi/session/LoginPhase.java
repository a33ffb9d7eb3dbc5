package io.numaiscsi.session;

import io.numaiscsi.proto.Opcode;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.login.LoginVerdict;
import io.numaiscsi.proto.transport.IscsiTransport;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection's login phase: each Login Request to {@link ConnectionLogin}, its answer held back as {@link LoginGuard}
 * says (against guessing), and the login dropped when it takes too long or sends anything else first. On the
 * connection's thread.
 */
final class LoginPhase {
    private static final Logger LOG = LoggerFactory.getLogger(IscsiConnection.class);

    private final IscsiConnection connection;
    private final IscsiTransport transport;
    private final ConnectionLogin login;
    private final LoginGuard loginGuard;

    LoginPhase(IscsiConnection connection, ConnectionLogin login, LoginGuard loginGuard) {
        this.connection = connection;
        this.transport = connection.transport();
        this.login = login;
        this.loginGuard = loginGuard;
    }

    /** A login that takes too long in all, or between two PDUs, holds a slot others need: it is dropped. */
    void checkTimeouts() {
        String broken = loginGuard.brokenTimeout();
        if (broken != null) {
            if (PeerEventLogs.LOGIN_FAILURES.permit()) {
                LOG.warn("dropping connection from {}: {}", transport.remoteAddress(), broken);
            }
            connection.abandonLogin();
        }
    }

    /** A PDU before the login completed; ownership stays with the caller. */
    void onPdu(Pdu pdu) {
        loginGuard.pduArrived();
        boolean answerHeld = loginGuard.answerHeld();
        if (pdu.opcode() != Opcode.LOGIN_REQUEST || answerHeld) {
            if (PeerEventLogs.LOGIN_FAILURES.permit()) {
                LOG.warn(
                        "rejecting connection from {}: {}",
                        transport.remoteAddress(),
                        answerHeld
                                ? "a PDU before the answer to its last login request"
                                : (pdu.opcode() == null
                                                ? "reserved opcode 0x" + Integer.toHexString(pdu.opcodeCode())
                                                : pdu.opcode())
                                        + " before login completed");
            }
            connection.abandonLogin();
            return;
        }
        LoginVerdict verdict = login.onLoginRequest(pdu);
        boolean failed = verdict == LoginVerdict.FAIL;
        if (failed && PeerEventLogs.LOGIN_FAILURES.permit()) {
            LOG.warn("login from {} rejected: {}", transport.remoteAddress(), login.failureReason());
        }
        long delay = loginGuard.holdAnswer(login.initiatorName(), failed && login.failureCountsAsGuess());
        if (delay > 0) {
            // Held back whatever the verdict, so the delay does not tell a guesser whether it guessed right.
            transport.executor().schedule(() -> answer(verdict), delay, TimeUnit.NANOSECONDS);
            return;
        }
        answer(verdict);
    }

    private void answer(LoginVerdict verdict) {
        loginGuard.answered();
        if (!connection.inLogin()) {
            return; // closed meanwhile
        }
        login.respond();
        switch (verdict) {
            case MORE -> transport.flush();
            case FAIL -> {
                connection.abandonLogin();
            }
            case DONE -> {
                transport.flush();
                connection.enterFullFeature();
            }
        }
    }
}
