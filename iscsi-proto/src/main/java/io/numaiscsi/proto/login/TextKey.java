package io.numaiscsi.proto.login;

import static io.numaiscsi.proto.login.TextKey.Phase.ANY;
import static io.numaiscsi.proto.login.TextKey.Phase.FULL_FEATURE;
import static io.numaiscsi.proto.login.TextKey.Phase.LEADING_ONLY;
import static io.numaiscsi.proto.login.TextKey.Phase.OPERATIONAL;
import static io.numaiscsi.proto.login.TextKey.Phase.SECURITY;
import static io.numaiscsi.proto.login.TextKey.Rule.BOOLEAN_AND;
import static io.numaiscsi.proto.login.TextKey.Rule.BOOLEAN_OR;
import static io.numaiscsi.proto.login.TextKey.Rule.DECLARATIVE;
import static io.numaiscsi.proto.login.TextKey.Rule.LIST;
import static io.numaiscsi.proto.login.TextKey.Rule.NUMERIC_MAX;
import static io.numaiscsi.proto.login.TextKey.Rule.NUMERIC_MIN;
import static io.numaiscsi.proto.login.TextKey.Rule.OBSOLETE;
import static io.numaiscsi.proto.login.TextKey.Scope.CONNECTION;
import static io.numaiscsi.proto.login.TextKey.Scope.SESSION;
import static io.numaiscsi.proto.login.TextKey.Sender.BOTH;
import static io.numaiscsi.proto.login.TextKey.Sender.INITIATOR;
import static io.numaiscsi.proto.login.TextKey.Sender.TARGET;

import java.util.HashMap;
import java.util.Map;

/**
 * The text keys of RFC 7143 sections 12-13 and RFC 7145 section 6, as data: one constant per key with its
 * negotiation rule, default, numeric range, login phase, scope, sender and discovery relevance.
 * Vendor extension keys ({@code X-...}, {@code X#...}) have no constant; {@link #isExtension(String)} tells them apart.
 */
public enum TextKey {
    // Security negotiation (RFC 7143 12): handled by an Authenticator, only AuthMethod follows a generic rule.
    AUTH_METHOD("AuthMethod", LIST, "None", 0, 0, SECURITY, CONNECTION, BOTH, false, false, 255),
    CHAP_A("CHAP_A", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, BOTH, false, false, 255),
    CHAP_I("CHAP_I", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, BOTH, false, false, 255),
    CHAP_C("CHAP_C", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, BOTH, false, false, 8192),
    CHAP_N("CHAP_N", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, BOTH, false, false, 8192),
    CHAP_R("CHAP_R", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, BOTH, false, false, 8192),
    SRP_U("SRP_U", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, INITIATOR, false, false, 8192),
    SRP_TARGET_AUTH("TargetAuth", DECLARATIVE, "No", 0, 0, SECURITY, CONNECTION, INITIATOR, false, false, 255),
    SRP_N("SRP_N", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, TARGET, false, false, 8192),
    SRP_G("SRP_g", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, TARGET, false, false, 8192),
    SRP_S("SRP_s", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, TARGET, false, false, 8192),
    SRP_A("SRP_A", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, INITIATOR, false, false, 8192),
    SRP_B("SRP_B", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, TARGET, false, false, 8192),
    SRP_M("SRP_M", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, INITIATOR, false, false, 8192),
    SRP_HM("SRP_HM", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, TARGET, false, false, 8192),
    KRB_AP_REQ("KRB_AP_REQ", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, INITIATOR, false, false, 8192),
    KRB_AP_REP("KRB_AP_REP", DECLARATIVE, "", 0, 0, SECURITY, CONNECTION, TARGET, false, false, 8192),

    // Operational keys (RFC 7143 13).
    HEADER_DIGEST("HeaderDigest", LIST, "None", 0, 0, OPERATIONAL, CONNECTION, BOTH, false, false, 255),
    DATA_DIGEST("DataDigest", LIST, "None", 0, 0, OPERATIONAL, CONNECTION, BOTH, false, false, 255),
    MAX_CONNECTIONS("MaxConnections", NUMERIC_MIN, "1", 1, 65535, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    SEND_TARGETS("SendTargets", DECLARATIVE, "", 0, 0, FULL_FEATURE, SESSION, INITIATOR, false, true, 255),
    TARGET_NAME("TargetName", DECLARATIVE, "", 0, 0, ANY, SESSION, BOTH, false, false, 255),
    INITIATOR_NAME("InitiatorName", DECLARATIVE, "", 0, 0, ANY, SESSION, INITIATOR, false, false, 255),
    TARGET_ALIAS("TargetAlias", DECLARATIVE, "", 0, 0, ANY, SESSION, TARGET, false, true, 255),
    INITIATOR_ALIAS("InitiatorAlias", DECLARATIVE, "", 0, 0, ANY, SESSION, INITIATOR, false, true, 255),
    TARGET_ADDRESS("TargetAddress", DECLARATIVE, "", 0, 0, ANY, SESSION, TARGET, false, true, 255),
    TARGET_PORTAL_GROUP_TAG("TargetPortalGroupTag", DECLARATIVE, "", 0, 65535, ANY, SESSION, TARGET, false, false, 255),
    INITIAL_R2T("InitialR2T", BOOLEAN_OR, "Yes", 0, 0, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    IMMEDIATE_DATA("ImmediateData", BOOLEAN_AND, "Yes", 0, 0, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    MAX_RECV_DATA_SEGMENT_LENGTH("MaxRecvDataSegmentLength", false, true),
    MAX_BURST_LENGTH(
            "MaxBurstLength", NUMERIC_MIN, "262144", 512, 16777215, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    FIRST_BURST_LENGTH(
            "FirstBurstLength", NUMERIC_MIN, "65536", 512, 16777215, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    DEFAULT_TIME2WAIT("DefaultTime2Wait", NUMERIC_MAX, "2", 0, 3600, LEADING_ONLY, SESSION, BOTH, false, false, 255),
    DEFAULT_TIME2RETAIN(
            "DefaultTime2Retain", NUMERIC_MIN, "20", 0, 3600, LEADING_ONLY, SESSION, BOTH, false, false, 255),
    MAX_OUTSTANDING_R2T("MaxOutstandingR2T", NUMERIC_MIN, "1", 1, 65535, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    DATA_PDU_IN_ORDER("DataPDUInOrder", BOOLEAN_OR, "Yes", 0, 0, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    DATA_SEQUENCE_IN_ORDER(
            "DataSequenceInOrder", BOOLEAN_OR, "Yes", 0, 0, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    ERROR_RECOVERY_LEVEL("ErrorRecoveryLevel", NUMERIC_MIN, "0", 0, 2, LEADING_ONLY, SESSION, BOTH, false, false, 255),
    SESSION_TYPE("SessionType", DECLARATIVE, "Normal", 0, 0, ANY, SESSION, INITIATOR, false, false, 255),
    TASK_REPORTING("TaskReporting", LIST, "RFC3720", 0, 0, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    ISCSI_PROTOCOL_LEVEL("iSCSIProtocolLevel", NUMERIC_MIN, "0", 0, 31, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    // Obsoleted by RFC 7143 13.26: markers are answered No, the intervals Reject.
    OF_MARKER("OFMarker", BOOLEAN_AND, "No", 0, 0, OPERATIONAL, CONNECTION, BOTH, false, false, 255),
    IF_MARKER("IFMarker", BOOLEAN_AND, "No", 0, 0, OPERATIONAL, CONNECTION, BOTH, false, false, 255),
    OF_MARK_INT("OFMarkInt", OBSOLETE, "", 0, 0, OPERATIONAL, CONNECTION, BOTH, false, false, 255),
    IF_MARK_INT("IFMarkInt", OBSOLETE, "", 0, 0, OPERATIONAL, CONNECTION, BOTH, false, false, 255),

    // iSER (RFC 7145 6).
    RDMA_EXTENSIONS("RDMAExtensions", BOOLEAN_AND, "No", 0, 0, LEADING_ONLY, SESSION, BOTH, true, false, 255),
    TARGET_RECV_DATA_SEGMENT_LENGTH("TargetRecvDataSegmentLength", true, false),
    INITIATOR_RECV_DATA_SEGMENT_LENGTH("InitiatorRecvDataSegmentLength", true, false),
    MAX_OUTSTANDING_UNEXPECTED_PDUS(
            "MaxOutstandingUnexpectedPDUs",
            DECLARATIVE,
            "0",
            0,
            4294967295L,
            LEADING_ONLY,
            SESSION,
            BOTH,
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

    /**
     * A data segment length key (RFC 7143 13.12, RFC 7145 6): declared, 512..2^24-1 bytes, 8192 by default, one value per
     * connection.
     */
    TextKey(String wireName, boolean irrelevantInDiscovery, boolean fullFeatureAllowed) {
        this(
                wireName,
                DECLARATIVE,
                "8192",
                512,
                16777215,
                OPERATIONAL,
                CONNECTION,
                BOTH,
                irrelevantInDiscovery,
                fullFeatureAllowed,
                255);
    }

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
