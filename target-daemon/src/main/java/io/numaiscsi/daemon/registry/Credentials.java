package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.ChapCredentials;
import io.numaiscsi.proto.login.ChapSecret;
import io.numaiscsi.session.ChapAccount;

/** The session layer's view of configured CHAP credentials. */
public final class Credentials {
    private Credentials() {}

    /** The account a login must prove; null stays null (no authentication). */
    public static ChapAccount account(ChapCredentials c) {
        if (c == null) {
            return null;
        }
        ChapSecret initiator = new ChapSecret(c.username(), c.secret());
        ChapSecret target = c.mutual() ? new ChapSecret(c.mutualUsername(), c.mutualSecret()) : null;
        return new ChapAccount(initiator, target);
    }
}
