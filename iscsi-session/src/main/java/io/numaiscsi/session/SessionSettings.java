package io.numaiscsi.session;

import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.proto.login.TargetLimits;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Session-layer settings from the config: negotiation limits, the CmdSN window, keepalive, the
 * portal addresses SendTargets reports, resource limits and the CHAP accounts of discovery and initiators. The portals
 * and the CHAP accounts are live: the admin API replaces them while the daemon runs.
 */
public record SessionSettings(
        TargetLimits limits,
        int queueDepth,
        Duration nopInInterval,
        Duration nopInTimeout,
        ServedPortals portals,
        int targetPortalGroupTag,
        LimitsSettings resources,
        CurrentChapAccounts chap) {

    public SessionSettings {
        Objects.requireNonNull(portals, "portals");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(chap, "chap");
    }

    /** Fixed portals and CHAP accounts. */
    public SessionSettings(
            TargetLimits limits,
            int queueDepth,
            Duration nopInInterval,
            Duration nopInTimeout,
            List<String> portalAddresses,
            int targetPortalGroupTag,
            LimitsSettings resources,
            ChapAccounts chapAccounts) {
        this(
                limits,
                queueDepth,
                nopInInterval,
                nopInTimeout,
                new ServedPortals(portalAddresses),
                targetPortalGroupTag,
                resources,
                new CurrentChapAccounts(chapAccounts));
    }

    /** The portals SendTargets reports now. */
    public List<String> portalAddresses() {
        return portals.addresses();
    }

    /** The discovery and per-initiator CHAP accounts new logins use now. */
    public ChapAccounts chapAccounts() {
        return chap.get();
    }
}
