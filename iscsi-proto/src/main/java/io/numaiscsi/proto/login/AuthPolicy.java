package io.numaiscsi.proto.login;

import java.util.List;

/**
 * Chooses the AuthMethods of one login once the initiator and target are known (the first request text): a
 * target with CHAP credentials offers CHAP only, an open one None. Called once per login.
 */
@FunctionalInterface
public interface AuthPolicy {
    /**
     * The authenticators this login may use, in the target's preference order; fresh instances (they hold the
     * login's state). {@code target} is null for discovery sessions. An empty list refuses every AuthMethod.
     */
    List<Authenticator> authenticators(SessionType type, String initiatorName, TargetInfo target);

    /** The same authenticators for every login (they must be stateless, as {@link Authenticator#none()}). */
    static AuthPolicy fixed(List<Authenticator> authenticators) {
        List<Authenticator> copy = List.copyOf(authenticators);
        return (type, initiatorName, target) -> copy;
    }
}
