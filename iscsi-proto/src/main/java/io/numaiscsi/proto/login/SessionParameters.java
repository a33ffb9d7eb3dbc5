package io.numaiscsi.proto.login;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/** The negotiated outcome of one login (RFC 7143 13): immutable. Keys not negotiated hold their defaults. */
public final class SessionParameters {
    private final SessionType sessionType;
    private final String initiatorName;
    private final String initiatorAlias;
    private final String targetName;
    private final long isid;
    private final int tsih;
    private final int cid;
    private final int initiatorMaxRecvDataSegmentLength;
    private final int targetMaxRecvDataSegmentLength;
    private final int maxBurstLength;
    private final int firstBurstLength;
    private final int maxOutstandingR2T;
    private final boolean immediateData;
    private final boolean initialR2T;
    private final boolean headerDigest;
    private final boolean dataDigest;
    private final boolean dataPduInOrder;
    private final boolean dataSequenceInOrder;
    private final int errorRecoveryLevel;
    private final int defaultTime2Wait;
    private final int defaultTime2Retain;
    private final int maxConnections;
    private final boolean rdmaExtensions;
    private final int targetRecvDataSegmentLength;
    private final long maxOutstandingUnexpectedPdus;
    private final int expCmdSN;
    private final Map<TextKey, String> values;

    SessionParameters(
            SessionType sessionType,
            String initiatorName,
            String targetName,
            long isid,
            int tsih,
            int cid,
            int targetMaxRecvDataSegmentLength,
            Map<TextKey, String> negotiated,
            int expCmdSN) {
        EnumMap<TextKey, String> all = new EnumMap<>(TextKey.class);
        for (TextKey key : TextKey.values()) {
            String v = negotiated.get(key);
            all.put(key, v != null ? v : key.defaultValue());
        }
        this.values = Collections.unmodifiableMap(all);
        this.sessionType = sessionType;
        this.initiatorName = initiatorName;
        this.initiatorAlias = negotiated.get(TextKey.INITIATOR_ALIAS);
        this.targetName = targetName;
        this.isid = isid;
        this.tsih = tsih;
        this.cid = cid;
        this.rdmaExtensions = yes(TextKey.RDMA_EXTENSIONS);
        // RFC 7145 6: under iSER MaxRecvDataSegmentLength is not used, InitiatorRecvDataSegmentLength bounds our Sends
        this.initiatorMaxRecvDataSegmentLength = number(
                rdmaExtensions ? TextKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH : TextKey.MAX_RECV_DATA_SEGMENT_LENGTH);
        this.targetMaxRecvDataSegmentLength = targetMaxRecvDataSegmentLength;
        this.maxBurstLength = number(TextKey.MAX_BURST_LENGTH);
        this.firstBurstLength = number(TextKey.FIRST_BURST_LENGTH);
        this.maxOutstandingR2T = number(TextKey.MAX_OUTSTANDING_R2T);
        this.immediateData = yes(TextKey.IMMEDIATE_DATA);
        this.initialR2T = yes(TextKey.INITIAL_R2T);
        this.headerDigest = KeyRules.CRC32C.equals(values.get(TextKey.HEADER_DIGEST));
        this.dataDigest = KeyRules.CRC32C.equals(values.get(TextKey.DATA_DIGEST));
        this.dataPduInOrder = yes(TextKey.DATA_PDU_IN_ORDER);
        this.dataSequenceInOrder = yes(TextKey.DATA_SEQUENCE_IN_ORDER);
        this.errorRecoveryLevel = number(TextKey.ERROR_RECOVERY_LEVEL);
        this.defaultTime2Wait = number(TextKey.DEFAULT_TIME2WAIT);
        this.defaultTime2Retain = number(TextKey.DEFAULT_TIME2RETAIN);
        this.maxConnections = number(TextKey.MAX_CONNECTIONS);
        this.targetRecvDataSegmentLength = number(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH);
        this.maxOutstandingUnexpectedPdus = KeyRules.parseNumber(values.get(TextKey.MAX_OUTSTANDING_UNEXPECTED_PDUS));
        this.expCmdSN = expCmdSN;
    }

    private int number(TextKey key) {
        return (int) KeyRules.parseNumber(values.get(key));
    }

    private boolean yes(TextKey key) {
        return KeyRules.YES.equals(values.get(key));
    }

    public SessionType sessionType() {
        return sessionType;
    }

    public String initiatorName() {
        return initiatorName;
    }
    /** The InitiatorAlias, or null if the initiator declared none. */
    public String initiatorAlias() {
        return initiatorAlias;
    }
    /** The TargetName, or null for a discovery session. */
    public String targetName() {
        return targetName;
    }

    public long isid() {
        return isid;
    }

    public int tsih() {
        return tsih;
    }

    public int cid() {
        return cid;
    }
    /** What WE may send in one PDU (Data-In, text responses): the initiator's MaxRecvDataSegmentLength, or with
     *  RDMAExtensions=Yes its InitiatorRecvDataSegmentLength. */
    public int initiatorMaxRecvDataSegmentLength() {
        return initiatorMaxRecvDataSegmentLength;
    }
    /** What the initiator may send us (immediate data, Data-Out): our declaration. */
    public int targetMaxRecvDataSegmentLength() {
        return targetMaxRecvDataSegmentLength;
    }

    public int maxBurstLength() {
        return maxBurstLength;
    }

    public int firstBurstLength() {
        return firstBurstLength;
    }

    public int maxOutstandingR2T() {
        return maxOutstandingR2T;
    }

    public boolean immediateData() {
        return immediateData;
    }

    public boolean initialR2T() {
        return initialR2T;
    }

    public boolean headerDigest() {
        return headerDigest;
    }

    public boolean dataDigest() {
        return dataDigest;
    }

    public boolean dataPduInOrder() {
        return dataPduInOrder;
    }

    public boolean dataSequenceInOrder() {
        return dataSequenceInOrder;
    }

    public int errorRecoveryLevel() {
        return errorRecoveryLevel;
    }

    public int defaultTime2Wait() {
        return defaultTime2Wait;
    }

    public int defaultTime2Retain() {
        return defaultTime2Retain;
    }

    public int maxConnections() {
        return maxConnections;
    }

    public boolean rdmaExtensions() {
        return rdmaExtensions;
    }
    /** iSER: the largest data segment the initiator may Send us in a control PDU, as declared (else 8192). */
    public int targetRecvDataSegmentLength() {
        return targetRecvDataSegmentLength;
    }
    /** iSER: the initiator's MaxOutstandingUnexpectedPDUs (unexpected PDUs it takes at once); 0 = none declared. */
    public long maxOutstandingUnexpectedPdus() {
        return maxOutstandingUnexpectedPdus;
    }
    /** The CmdSN of the leading Login Request: the number of the first command. */
    public int expCmdSN() {
        return expCmdSN;
    }

    /** The outcome of any key as its wire string (default when not negotiated), e.g. the iSER segment lengths. */
    public String negotiated(TextKey key) {
        return values.get(key);
    }

    @Override
    public String toString() {
        return "SessionParameters{" + sessionType + " " + initiatorName + " -> " + targetName + " isid=0x"
                + Long.toHexString(isid) + " tsih=" + tsih + " cid=" + cid + " " + values + "}";
    }
}
