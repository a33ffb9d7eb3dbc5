package io.numaiscsi.daemon.session;

import io.numaiscsi.proto.login.TargetLimits;
import java.time.Duration;
import java.util.List;

/**
 * Session-layer settings from the config: negotiation limits, the CmdSN window, keepalive, and the
 * portal addresses SendTargets reports.
 */
public record SessionSettings(TargetLimits limits, int queueDepth, Duration nopInInterval, Duration nopInTimeout,
                              List<String> portalAddresses, int targetPortalGroupTag) {
}
