package io.numaiscsi.config;

import java.time.Duration;
import java.util.Objects;

/**
 * TEST/DEBUG ONLY: faults a LUN's backing store injects (the {@code inject-*} LUN keys), for the daemon's
 * fault tests. {@link #NONE} in every real configuration.
 *
 * @param latency           delay added before every backing-store operation ({@code inject-latency})
 * @param mediumErrorEvery  every Nth read or write fails with a medium error, 0 = never ({@code inject-medium-error-every})
 * @param noSpaceAfterBytes writes fail as on a full disk once this many bytes were written, {@link Long#MAX_VALUE} = never
 *                          ({@code inject-no-space-after})
 */
public record FaultInjection(Duration latency, int mediumErrorEvery, long noSpaceAfterBytes) {
    public static final FaultInjection NONE = new FaultInjection(Duration.ZERO, 0, Long.MAX_VALUE);

    public FaultInjection {
        Objects.requireNonNull(latency, "latency");
    }

    /** true when any fault is configured. */
    public boolean active() {
        return !equals(NONE);
    }
}
