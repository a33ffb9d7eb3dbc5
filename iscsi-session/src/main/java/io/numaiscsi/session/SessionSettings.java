package io.numaiscsi.session;

import io.numaiscsi.proto.login.TargetLimits;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Session-layer settings from the config: negotiation limits, the CmdSN window, keepalive, the
 * portal addresses SendTargets reports, resource limits and the CHAP accounts of discovery and initiators.
 */
public record SessionSettings(TargetLimits limits, int queueDepth, Duration nopInInterval, Duration nopInTimeout,
                              List<String> portalAddresses, int targetPortalGroupTag, ResourceLimits resources,
                              ChapAccounts chapAccounts) {

    public SessionSettings {
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(chapAccounts, "chapAccounts");
    }

    /** Default resource limits, no discovery or per-initiator CHAP. */
    public SessionSettings(TargetLimits limits, int queueDepth, Duration nopInInterval, Duration nopInTimeout,
                           List<String> portalAddresses, int targetPortalGroupTag) {
        this(limits, queueDepth, nopInInterval, nopInTimeout, portalAddresses, targetPortalGroupTag,
                ResourceLimits.DEFAULT, ChapAccounts.NONE);
    }
}
