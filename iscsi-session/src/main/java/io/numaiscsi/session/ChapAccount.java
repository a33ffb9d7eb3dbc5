package io.numaiscsi.session;

import io.numaiscsi.proto.login.ChapSecret;
import java.util.Objects;

/**
 * The CHAP credentials one login needs: what the initiator proves, and what the target answers mutual CHAP with
 * (null: the target does not authenticate itself, and an initiator asking for it is refused).
 */
public record ChapAccount(ChapSecret initiator, ChapSecret target) {
    public ChapAccount {
        Objects.requireNonNull(initiator, "initiator");
    }
}
