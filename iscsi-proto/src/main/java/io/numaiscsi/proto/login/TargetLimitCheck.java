package io.numaiscsi.proto.login;

/** The values a login negotiated, checked against what the target allows before the login completes. */
final class TargetLimitCheck {
    private TargetLimitCheck() {}

    /**
     * What of the negotiated values lies outside {@code limits}, in words, or null when nothing does. A key the target
     * answered "Reject" keeps its RFC default, which may lie outside what this target
     * allows (e.g. MaxBurstLength 262144 against a limit of 512, or HeaderDigest None where CRC32C is
     * required): such a login must fail rather than run with values the target never agreed to.
     */
    static String outside(TargetLimits limits, Negotiation negotiation, SessionType sessionType) {
        if (!limits.headerDigests().contains(negotiation.value(TextKey.HEADER_DIGEST))) {
            return "HeaderDigest=" + negotiation.value(TextKey.HEADER_DIGEST) + " is not one the target accepts "
                    + limits.headerDigests();
        }
        if (!limits.dataDigests().contains(negotiation.value(TextKey.DATA_DIGEST))) {
            return "DataDigest=" + negotiation.value(TextKey.DATA_DIGEST) + " is not one the target accepts "
                    + limits.dataDigests();
        }
        if (sessionType != SessionType.NORMAL) {
            return null;
        }
        String burst = aboveLimit(negotiation, TextKey.MAX_BURST_LENGTH, limits.maxBurstLength());
        if (burst == null) {
            burst = aboveLimit(negotiation, TextKey.FIRST_BURST_LENGTH, limits.firstBurstLength());
        }
        if (burst == null) {
            burst = aboveLimit(negotiation, TextKey.MAX_OUTSTANDING_R2T, limits.maxOutstandingR2T());
        }
        if (burst != null) {
            return burst;
        }
        if (!limits.immediateData() && KeyRules.YES.equals(negotiation.value(TextKey.IMMEDIATE_DATA))) {
            return "ImmediateData=Yes but the target does not accept immediate data";
        }
        if (limits.initialR2T() && KeyRules.NO.equals(negotiation.value(TextKey.INITIAL_R2T))) {
            return "InitialR2T=No but the target requires InitialR2T=Yes";
        }
        return null;
    }

    private static String aboveLimit(Negotiation negotiation, TextKey key, long limit) {
        long value = KeyRules.parseNumber(negotiation.value(key));
        return value > limit
                ? key.wireName() + "=" + value + " exceeds the target's " + limit
                        + " (a rejected offer falls back to the RFC default)"
                : null;
    }
}
