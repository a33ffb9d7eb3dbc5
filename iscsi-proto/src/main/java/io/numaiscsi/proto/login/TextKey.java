package io.numaiscsi.proto.login;

import java.util.HashMap;
import java.util.Map;

/**
 * The text keys of RFC 7143 sections 12-13 and RFC 7145 section 6, as data: one constant per key with its
 * negotiation rule, default, numeric range, login phase, scope, sender and discovery relevance.
 * Vendor extension keys ({@code X-...}, {@code X#...}) have no constant; {@link #isExtension(String)} tells them apart.
 */
public enum TextKey {
    // Security negotiation (RFC 7143 12): handled by an Authenticator, only AuthMethod follows a generic rule.
    AUTH_METHOD(
            "AuthMethod", Rule.LIST, "None", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.BOTH, false, false, 255),
    CHAP_A("CHAP_A", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.BOTH, false, false, 255),
    CHAP_I("CHAP_I", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.BOTH, false, false, 255),
    CHAP_C("CHAP_C", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.BOTH, false, false, 8192),
    CHAP_N("CHAP_N", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.BOTH, false, false, 8192),
    CHAP_R("CHAP_R", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.BOTH, false, false, 8192),
    SRP_U("SRP_U", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.INITIATOR, false, false, 8192),
    SRP_TARGET_AUTH(
            "TargetAuth",
            Rule.DECLARATIVE,
            "No",
            0,
            0,
            Phase.SECURITY,
            Scope.CONNECTION,
            Sender.INITIATOR,
            false,
            false,
            255),
    SRP_N("SRP_N", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.TARGET, false, false, 8192),
    SRP_G("SRP_g", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.TARGET, false, false, 8192),
    SRP_S("SRP_s", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.TARGET, false, false, 8192),
    SRP_A("SRP_A", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.INITIATOR, false, false, 8192),
    SRP_B("SRP_B", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.TARGET, false, false, 8192),
    SRP_M("SRP_M", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.INITIATOR, false, false, 8192),
    SRP_HM("SRP_HM", Rule.DECLARATIVE, "", 0, 0, Phase.SECURITY, Scope.CONNECTION, Sender.TARGET, false, false, 8192),
    KRB_AP_REQ(
            "KRB_AP_REQ",
            Rule.DECLARATIVE,
            "",
            0,
            0,
            Phase.SECURITY,
            Scope.CONNECTION,
            Sender.INITIATOR,
            false,
            false,
            8192),
    KRB_AP_REP(
            "KRB_AP_REP",
            Rule.DECLARATIVE,
            "",
            0,
            0,
            Phase.SECURITY,
            Scope.CONNECTION,
            Sender.TARGET,
            false,
            false,
            8192),

    // Operational keys (RFC 7143 13).
    HEADER_DIGEST(
            "HeaderDigest",
            Rule.LIST,
            "None",
            0,
            0,
            Phase.OPERATIONAL,
            Scope.CONNECTION,
            Sender.BOTH,
            false,
            false,
            255),
    DATA_DIGEST(
            "DataDigest", Rule.LIST, "None", 0, 0, Phase.OPERATIONAL, Scope.CONNECTION, Sender.BOTH, false, false, 255),
    MAX_CONNECTIONS(
            "MaxConnections",
            Rule.NUMERIC_MIN,
            "1",
            1,
            65535,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    SEND_TARGETS(
            "SendTargets",
            Rule.DECLARATIVE,
            "",
            0,
            0,
            Phase.FULL_FEATURE,
            Scope.SESSION,
            Sender.INITIATOR,
            false,
            true,
            255),
    TARGET_NAME("TargetName", Rule.DECLARATIVE, "", 0, 0, Phase.ANY, Scope.SESSION, Sender.BOTH, false, false, 255),
    INITIATOR_NAME(
            "InitiatorName", Rule.DECLARATIVE, "", 0, 0, Phase.ANY, Scope.SESSION, Sender.INITIATOR, false, false, 255),
    TARGET_ALIAS("TargetAlias", Rule.DECLARATIVE, "", 0, 0, Phase.ANY, Scope.SESSION, Sender.TARGET, false, true, 255),
    INITIATOR_ALIAS(
            "InitiatorAlias", Rule.DECLARATIVE, "", 0, 0, Phase.ANY, Scope.SESSION, Sender.INITIATOR, false, true, 255),
    TARGET_ADDRESS(
            "TargetAddress", Rule.DECLARATIVE, "", 0, 0, Phase.ANY, Scope.SESSION, Sender.TARGET, false, true, 255),
    TARGET_PORTAL_GROUP_TAG(
            "TargetPortalGroupTag",
            Rule.DECLARATIVE,
            "",
            0,
            65535,
            Phase.ANY,
            Scope.SESSION,
            Sender.TARGET,
            false,
            false,
            255),
    INITIAL_R2T(
            "InitialR2T",
            Rule.BOOLEAN_OR,
            "Yes",
            0,
            0,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    IMMEDIATE_DATA(
            "ImmediateData",
            Rule.BOOLEAN_AND,
            "Yes",
            0,
            0,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    MAX_RECV_DATA_SEGMENT_LENGTH(
            "MaxRecvDataSegmentLength",
            Rule.DECLARATIVE,
            "8192",
            512,
            16777215,
            Phase.OPERATIONAL,
            Scope.CONNECTION,
            Sender.BOTH,
            false,
            true,
            255),
    MAX_BURST_LENGTH(
            "MaxBurstLength",
            Rule.NUMERIC_MIN,
            "262144",
            512,
            16777215,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    FIRST_BURST_LENGTH(
            "FirstBurstLength",
            Rule.NUMERIC_MIN,
            "65536",
            512,
            16777215,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    DEFAULT_TIME2WAIT(
            "DefaultTime2Wait",
            Rule.NUMERIC_MAX,
            "2",
            0,
            3600,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            false,
            false,
            255),
    DEFAULT_TIME2RETAIN(
            "DefaultTime2Retain",
            Rule.NUMERIC_MIN,
            "20",
            0,
            3600,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            false,
            false,
            255),
    MAX_OUTSTANDING_R2T(
            "MaxOutstandingR2T",
            Rule.NUMERIC_MIN,
            "1",
            1,
            65535,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    DATA_PDU_IN_ORDER(
            "DataPDUInOrder",
            Rule.BOOLEAN_OR,
            "Yes",
            0,
            0,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    DATA_SEQUENCE_IN_ORDER(
            "DataSequenceInOrder",
            Rule.BOOLEAN_OR,
            "Yes",
            0,
            0,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    ERROR_RECOVERY_LEVEL(
            "ErrorRecoveryLevel",
            Rule.NUMERIC_MIN,
            "0",
            0,
            2,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            false,
            false,
            255),
    SESSION_TYPE(
            "SessionType",
            Rule.DECLARATIVE,
            "Normal",
            0,
            0,
            Phase.ANY,
            Scope.SESSION,
            Sender.INITIATOR,
            false,
            false,
            255),
    TASK_REPORTING(
            "TaskReporting",
            Rule.LIST,
            "RFC3720",
            0,
            0,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    ISCSI_PROTOCOL_LEVEL(
            "iSCSIProtocolLevel",
            Rule.NUMERIC_MIN,
            "0",
            0,
            31,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    // Obsoleted by RFC 7143 13.26: markers are answered No, the intervals Reject.
    OF_MARKER(
            "OFMarker",
            Rule.BOOLEAN_AND,
            "No",
            0,
            0,
            Phase.OPERATIONAL,
            Scope.CONNECTION,
            Sender.BOTH,
            false,
            false,
            255),
    IF_MARKER(
            "IFMarker",
            Rule.BOOLEAN_AND,
            "No",
            0,
            0,
            Phase.OPERATIONAL,
            Scope.CONNECTION,
            Sender.BOTH,
            false,
            false,
            255),
    OF_MARK_INT(
            "OFMarkInt", Rule.OBSOLETE, "", 0, 0, Phase.OPERATIONAL, Scope.CONNECTION, Sender.BOTH, false, false, 255),
    IF_MARK_INT(
            "IFMarkInt", Rule.OBSOLETE, "", 0, 0, Phase.OPERATIONAL, Scope.CONNECTION, Sender.BOTH, false, false, 255),

    // iSER (RFC 7145 6).
    RDMA_EXTENSIONS(
            "RDMAExtensions",
            Rule.BOOLEAN_AND,
            "No",
            0,
            0,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255),
    TARGET_RECV_DATA_SEGMENT_LENGTH(
            "TargetRecvDataSegmentLength",
            Rule.DECLARATIVE,
            "8192",
            512,
            16777215,
            Phase.OPERATIONAL,
            Scope.CONNECTION,
            Sender.BOTH,
            true,
            false,
            255),
    INITIATOR_RECV_DATA_SEGMENT_LENGTH(
            "InitiatorRecvDataSegmentLength",
            Rule.DECLARATIVE,
            "8192",
            512,
            16777215,
            Phase.OPERATIONAL,
            Scope.CONNECTION,
            Sender.BOTH,
            true,
            false,
            255),
    MAX_OUTSTANDING_UNEXPECTED_PDUS(
            "MaxOutstandingUnexpectedPDUs",
            Rule.DECLARATIVE,
            "0",
            0,
            4294967295L,
            Phase.LEADING_ONLY,
            Scope.SESSION,
            Sender.BOTH,
            true,
            false,
            255);

    /** The result function of RFC 7143 6.2.2 (and OBSOLETE for keys always answered Reject). */
    public enum Rule {
        LIST,
        NUMERIC_MIN,
        NUMERIC_MAX,
        BOOLEAN_AND,
        BOOLEAN_OR,
        DECLARATIVE,
        OBSOLETE
    }

    /** Where the key may appear: SECURITY stage only, OPERATIONAL stage, LEADING_ONLY (operational stage of the
     *  leading connection), ANY login stage ("Any-Stage"), or FULL_FEATURE phase only (FFPO). */
    public enum Phase {
        SECURITY,
        OPERATIONAL,
        LEADING_ONLY,
        ANY,
        FULL_FEATURE
    }

    public enum Scope {
        SESSION,
        CONNECTION
    }

    public enum Sender {
        INITIATOR,
        TARGET,
        BOTH
    }

    private static final Map<String, TextKey> BY_NAME = new HashMap<>();

    static {
        for (TextKey key : values()) {
            if (BY_NAME.put(key.wireName, key) != null) {
                throw new IllegalStateException("duplicate key name " + key.wireName);
            }
        }
    }

    private final String wireName;
    private final Rule rule;
    private final String defaultValue;
    private final long min;
    private final long max;
    private final Phase phase;
    private final Scope scope;
    private final Sender sender;
    private final boolean irrelevantInDiscovery;
    private final boolean fullFeatureAllowed;
    private final int maxValueLength;

    TextKey(
            String wireName,
            Rule rule,
            String defaultValue,
            long min,
            long max,
            Phase phase,
            Scope scope,
            Sender sender,
            boolean irrelevantInDiscovery,
            boolean fullFeatureAllowed,
            int maxValueLength) {
        this.wireName = wireName;
        this.rule = rule;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.phase = phase;
        this.scope = scope;
        this.sender = sender;
        this.irrelevantInDiscovery = irrelevantInDiscovery;
        this.fullFeatureAllowed = fullFeatureAllowed;
        this.maxValueLength = maxValueLength;
    }

    public String wireName() {
        return wireName;
    }

    public Rule rule() {
        return rule;
    }

    public String defaultValue() {
        return defaultValue;
    }
    /** Lowest valid value of a numeric key (meaningless for others). */
    public long min() {
        return min;
    }
    /** Highest valid value of a numeric key (meaningless for others). */
    public long max() {
        return max;
    }

    public Phase phase() {
        return phase;
    }

    public Scope scope() {
        return scope;
    }

    public Sender sender() {
        return sender;
    }

    public boolean irrelevantInDiscovery() {
        return irrelevantInDiscovery;
    }
    /** Use "ALL" or "FFPO": the key may appear in a full-feature-phase Text Request. */
    public boolean fullFeatureAllowed() {
        return fullFeatureAllowed;
    }
    /** Longest value in bytes (RFC 7143 6.1: 255 unless the key allows a large binary value). */
    public int maxValueLength() {
        return maxValueLength;
    }

    /** The key for a wire name (case-sensitive), or null for unknown and extension keys. */
    public static TextKey byName(String name) {
        return BY_NAME.get(name);
    }

    /** RFC 7143 6.1 / 13.x: "X-" vendor-specific and "X#" IANA-registered extension key names. */
    public static boolean isExtension(String name) {
        return name.startsWith("X-") || name.startsWith("X#");
    }
}
