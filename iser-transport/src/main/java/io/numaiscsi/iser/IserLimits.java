package io.numaiscsi.iser;

import io.numaiscsi.proto.login.TargetLimits;
import java.util.List;

/**
 * The negotiation limits of an iSER portal, derived from the daemon's: RDMAExtensions=Yes offered, digests
 * None only (RFC 7145 5.1.2: the RDMA layer protects the data), InitialR2T=Yes so every byte not sent as
 * immediate data is RDMA-Read (no unsolicited Data-Out Sends), MaxRecvDataSegmentLength (and so
 * TargetRecvDataSegmentLength) no larger than the posted receive buffers hold, and MaxOutstandingUnexpectedPDUs the
 * receive buffers posted beyond the command window.
 */
public final class IserLimits {
    private static final List<String> NONE = List.of("None");

    private IserLimits() {}

    public static TargetLimits of(TargetLimits base, IserSettings settings) {
        int segment = Math.min(base.maxRecvDataSegmentLength(), settings.recvDataSegmentLength());
        int firstBurst = Math.min(base.firstBurstLength(), base.maxBurstLength());
        return new TargetLimits(
                segment,
                base.maxBurstLength(),
                firstBurst,
                base.maxOutstandingR2T(),
                base.immediateData(),
                true,
                NONE,
                NONE,
                base.defaultTime2Wait(),
                base.defaultTime2Retain(),
                true,
                settings.maxOutstandingUnexpectedPdus());
    }
}
