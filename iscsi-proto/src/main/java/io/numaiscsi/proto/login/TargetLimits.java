package io.numaiscsi.proto.login;

import java.util.List;
import java.util.Objects;

/**
 * What the target offers or accepts in negotiation, from the daemon's configuration. Digest lists hold "CRC32C" and/or
 * "None", in the target's preference order; the initiator's order still decides among values both support.
 * {@code maxOutstandingUnexpectedPdus} is the iSER MaxOutstandingUnexpectedPDUs the target declares (RFC 7145 6:
 * 2 or more), 0 when it declares none.
 */
public record TargetLimits(
        int maxRecvDataSegmentLength,
        int maxBurstLength,
        int firstBurstLength,
        int maxOutstandingR2T,
        boolean immediateData,
        boolean initialR2T,
        List<String> headerDigests,
        List<String> dataDigests,
        int defaultTime2Wait,
        int defaultTime2Retain,
        boolean iser,
        int maxOutstandingUnexpectedPdus) {

    public TargetLimits {
        checkRange("maxRecvDataSegmentLength", maxRecvDataSegmentLength, 512, 16777215);
        checkRange("maxBurstLength", maxBurstLength, 512, 16777215);
        checkRange("firstBurstLength", firstBurstLength, 512, 16777215);
        if (firstBurstLength > maxBurstLength) {
            throw new IllegalArgumentException("firstBurstLength " + firstBurstLength + " exceeds maxBurstLength "
                    + maxBurstLength + " (RFC 7143 13.14)");
        }
        checkRange("maxOutstandingR2T", maxOutstandingR2T, 1, 65535);
        checkRange("defaultTime2Wait", defaultTime2Wait, 0, 3600);
        checkRange("defaultTime2Retain", defaultTime2Retain, 0, 3600);
        headerDigests = checkDigests("headerDigests", headerDigests);
        dataDigests = checkDigests("dataDigests", dataDigests);
        if (maxOutstandingUnexpectedPdus != 0) {
            checkRange("maxOutstandingUnexpectedPdus", maxOutstandingUnexpectedPdus, 2, Integer.MAX_VALUE);
        }
    }

    /** RFC 7143 defaults for every key, no digests required, 256 KiB data segments, no iSER. */
    public static TargetLimits defaults() {
        return new TargetLimits(
                262144,
                262144,
                65536,
                1,
                true,
                true,
                List.of("None", "CRC32C"),
                List.of("None", "CRC32C"),
                2,
                20,
                false,
                0);
    }

    private static void checkRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " outside " + min + ".." + max);
        }
    }

    private static List<String> checkDigests(String name, List<String> digests) {
        Objects.requireNonNull(digests, name);
        if (digests.isEmpty()) {
            throw new IllegalArgumentException(name + " is empty");
        }
        for (String d : digests) {
            if (!"CRC32C".equals(d) && !"None".equals(d)) {
                throw new IllegalArgumentException(name + " holds unknown digest " + d + " (CRC32C, None)");
            }
        }
        return List.copyOf(digests);
    }
}
