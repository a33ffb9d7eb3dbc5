package io.numaiscsi.proto.login;

import java.util.List;

/** The result functions of RFC 7143 6.2.2 as pure functions over wire strings. */
final class KeyRules {
    static final String REJECT = "Reject";
    static final String NOT_UNDERSTOOD = "NotUnderstood";
    static final String IRRELEVANT = "Irrelevant";
    static final String YES = "Yes";
    static final String NO = "No";
    static final String CRC32C = "CRC32C";
    /** RFC 7144: iSCSIProtocolLevel 1 is RFC 7143. */
    static final int PROTOCOL_LEVEL = 1;

    private KeyRules() {}

    /** The target's own value for a negotiated key: from its limits, or fixed by what this target implements. */
    static String targetValue(TextKey key, TargetLimits limits) {
        return switch (key) {
            case HEADER_DIGEST -> String.join(",", limits.headerDigests());
            case DATA_DIGEST -> String.join(",", limits.dataDigests());
            case MAX_CONNECTIONS -> "1";
            case INITIAL_R2T -> yesNo(limits.initialR2T());
            case IMMEDIATE_DATA -> yesNo(limits.immediateData());
            case MAX_BURST_LENGTH -> Integer.toString(limits.maxBurstLength());
            case FIRST_BURST_LENGTH -> Integer.toString(limits.firstBurstLength());
            case MAX_OUTSTANDING_R2T -> Integer.toString(limits.maxOutstandingR2T());
            case DEFAULT_TIME2WAIT -> Integer.toString(limits.defaultTime2Wait());
            case DEFAULT_TIME2RETAIN -> Integer.toString(limits.defaultTime2Retain());
            case DATA_PDU_IN_ORDER, DATA_SEQUENCE_IN_ORDER -> YES;
            case ERROR_RECOVERY_LEVEL -> "0";
            case TASK_REPORTING -> "RFC3720";
            case ISCSI_PROTOCOL_LEVEL -> Integer.toString(PROTOCOL_LEVEL);
            case OF_MARKER, IF_MARKER -> NO;
            case RDMA_EXTENSIONS -> yesNo(limits.iser());
            default -> key.defaultValue();
        };
    }

    /** The responder's answer to an offer of a negotiated (non-declarative) key. */
    static String respond(TextKey key, String offered, String targetValue) {
        return switch (key.rule()) {
            case LIST -> list(offered, targetValue);
            case NUMERIC_MIN, NUMERIC_MAX -> numeric(key, offered, parseNumber(targetValue));
            case BOOLEAN_AND, BOOLEAN_OR -> bool(key.rule(), offered, YES.equals(targetValue));
            case OBSOLETE -> REJECT;
            case DECLARATIVE -> throw new IllegalArgumentException(key.wireName() + " is declarative");
        };
    }

    /** LIST: the first value the initiator offers that the target supports, else Reject. */
    static String list(String offered, String supported) {
        List<String> ours = List.of(supported.split(","));
        for (String value : offered.split(",", -1)) {
            if (!value.isEmpty() && ours.contains(value)) {
                return value;
            }
        }
        return REJECT;
    }

    static String numeric(TextKey key, String offered, long targetValue) {
        long value = parseNumber(offered);
        if (value < key.min() || value > key.max()) {
            return REJECT;
        }
        long result =
                key.rule() == TextKey.Rule.NUMERIC_MIN ? Math.min(value, targetValue) : Math.max(value, targetValue);
        return Long.toString(result);
    }

    static String bool(TextKey.Rule rule, String offered, boolean targetValue) {
        if (!YES.equals(offered) && !NO.equals(offered)) {
            return REJECT;
        }
        boolean value = YES.equals(offered);
        return yesNo(rule == TextKey.Rule.BOOLEAN_AND ? value && targetValue : value || targetValue);
    }

    /**
     * Whether the initiator's answer to a key the target offered is a valid outcome of the key's rule
     * (RFC 7143 6.2.2): for MIN not above the offer, for MAX not below, for AND/OR consistent, for LIST one of ours.
     */
    static boolean acceptsAnswer(TextKey key, String ourOffer, String answer) {
        return switch (key.rule()) {
            case LIST -> List.of(ourOffer.split(",")).contains(answer);
            case NUMERIC_MIN -> inRange(key, answer) && parseNumber(answer) <= parseNumber(ourOffer);
            case NUMERIC_MAX -> inRange(key, answer) && parseNumber(answer) >= parseNumber(ourOffer);
            case BOOLEAN_AND -> NO.equals(answer) || (YES.equals(answer) && YES.equals(ourOffer));
            case BOOLEAN_OR -> YES.equals(answer) || (NO.equals(answer) && NO.equals(ourOffer));
            case DECLARATIVE, OBSOLETE -> false;
        };
    }

    /** Whether a declared or answered numeric value lies in the key's range. */
    static boolean inRange(TextKey key, String value) {
        long n = parseNumber(value);
        return n >= key.min() && n <= key.max();
    }

    /** RFC 7143 6.1 numerical values: decimal or "0x" hex; -1 when malformed or beyond 2^63. */
    static long parseNumber(String value) {
        if (value == null || value.isEmpty() || value.length() > 18) {
            return -1;
        }
        int radix = 10;
        String digits = value;
        if (value.startsWith("0x") || value.startsWith("0X")) {
            radix = 16;
            digits = value.substring(2);
        }
        if (digits.isEmpty()) {
            return -1;
        }
        long result = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = Character.digit(digits.charAt(i), radix);
            if (d < 0) {
                return -1;
            }
            result = result * radix + d;
        }
        return result;
    }

    static String yesNo(boolean value) {
        return value ? YES : NO;
    }
}
