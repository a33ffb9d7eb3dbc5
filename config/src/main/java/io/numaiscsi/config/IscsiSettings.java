package io.numaiscsi.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What the target offers in login negotiation (RFC 7143 section 13 keys) plus session keep-alive.
 * Digest lists hold {@code "CRC32C"} and {@code "None"} in the target's order of preference.
 */
public record IscsiSettings(
        int maxRecvDataSegmentLength,
        int maxBurstLength,
        int firstBurstLength,
        int maxOutstandingR2T,
        boolean immediateData,
        boolean initialR2T,
        int queueDepth,
        List<String> headerDigests,
        List<String> dataDigests,
        int defaultTime2Wait,
        int defaultTime2Retain,
        Duration nopInInterval,
        Duration nopInTimeout) {

    public IscsiSettings {
        headerDigests = List.copyOf(headerDigests);
        dataDigests = List.copyOf(dataDigests);
        Objects.requireNonNull(nopInInterval, "nopInInterval");
        Objects.requireNonNull(nopInTimeout, "nopInTimeout");
    }
}
