package io.numaiscsi.proto.login;

import java.util.List;

/**
 * One AuthMethod of the security negotiation stage (RFC 7143 12), plugged into the {@link LoginStateMachine}; one
 * instance per login. The state machine negotiates AuthMethod itself and hands the chosen authenticator the other
 * security keys (CHAP_A, CHAP_N, CHAP_R, ...) of each request. The target transits out of the security stage only
 * after SUCCESS; FAIL ends the login with 02/01.
 */
public interface Authenticator {
    /** The AuthMethod value, e.g. "CHAP" or "None". */
    String method();

    /** The method was chosen; may append keys to the response (none for CHAP, which waits for CHAP_A). */
    AuthVerdict start(String initiatorName, String targetName, List<KeyValue> response);

    /** The security keys of one request, in order; appends the target's keys to the response. */
    AuthVerdict onKeys(List<KeyValue> keys, List<KeyValue> response);

    /** Why the exchange failed, for the daemon's log (never a secret); null when it has not failed. */
    default String failureDetail() {
        return null;
    }

    /** AuthMethod=None: authenticated as soon as chosen, takes no keys. */
    static Authenticator none() {
        return NoAuthentication.INSTANCE;
    }
}
