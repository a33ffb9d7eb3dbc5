package io.numaiscsi.session;

import io.numaiscsi.config.AccessList;
import io.numaiscsi.proto.login.SessionType;
import java.util.HashMap;
import java.util.Map;

/**
 * Which CHAP credentials a login needs: a normal session uses the initiator's own account if it has one, else its
 * target's; a discovery session the discovery account. Null everywhere means AuthMethod=None.
 */
public final class ChapAccounts {
    public static final ChapAccounts NONE = new ChapAccounts(null, Map.of());

    private final ChapAccount discovery;
    private final Map<String, ChapAccount> byInitiator = new HashMap<>();

    /** {@code byInitiator} is keyed by initiator name (compared case-insensitively). */
    public ChapAccounts(ChapAccount discovery, Map<String, ChapAccount> byInitiator) {
        this.discovery = discovery;
        byInitiator.forEach((name, account) -> this.byInitiator.put(AccessList.normalizedName(name), account));
    }

    /** The account this login must prove, or null when it needs no authentication. */
    ChapAccount forLogin(SessionType type, String initiatorName, ExportedTarget target) {
        if (type == SessionType.DISCOVERY) {
            return discovery;
        }
        ChapAccount own = byInitiator.get(AccessList.normalizedName(initiatorName));
        if (own != null) {
            return own;
        }
        return target == null ? null : target.chap();
    }
}
