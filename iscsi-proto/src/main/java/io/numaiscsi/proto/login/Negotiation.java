package io.numaiscsi.proto.login;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The key state of one login (RFC 7143 6.2): answers the initiator's offers by each key's rule, records
 * declarations, makes the target's own offers and checks the initiator's answers to them. Pure, no I/O.
 */
final class Negotiation {
    static final int SECURITY_STAGE = 0;
    static final int OPERATIONAL_STAGE = 1;

    private final TargetLimits limits;
    private String authMethods = "";
    private final Map<TextKey, String> values = new EnumMap<>(TextKey.class);
    /** Every key name the initiator offered or declared in this login: a second time is an error. */
    private final Set<String> seen = new HashSet<>();
    /** Keys the target offered, awaiting the initiator's answer. */
    private final Map<TextKey, String> offers = new EnumMap<>(TextKey.class);

    private final Set<TextKey> everOffered = new HashSet<>();
    private final List<KeyValue> authKeys = new ArrayList<>();
    private SessionType sessionType = SessionType.NORMAL;
    private boolean leading = true;
    private String authMethodAnswer;
    private boolean segmentDeclared;
    private boolean unexpectedPdusDeclared;

    Negotiation(TargetLimits limits) {
        this.limits = limits;
    }

    Negotiation(TargetLimits limits, List<String> authMethods) {
        this(limits);
        authMethods(authMethods);
    }

    /** The AuthMethods the target accepts in this login; none until set (AuthMethod offers are then rejected). */
    void authMethods(List<String> methods) {
        this.authMethods = String.join(",", methods);
    }

    void sessionType(SessionType type) {
        this.sessionType = type;
    }

    /** A connection added to an existing session (TSIH != 0): leading-only keys are irrelevant. */
    void leading(boolean leading) {
        this.leading = leading;
    }

    /**
     * Processes the keys of one complete request text received in {@code stage}; appends answers to
     * {@code response}. Security keys other than AuthMethod are left in {@link #takeAuthKeys()}.
     * Returns null, or the failure that ends the login.
     */
    LoginFailure process(List<KeyValue> keys, int stage, List<KeyValue> response) {
        authKeys.clear();
        authMethodAnswer = null;
        // MaxBurstLength and RDMAExtensions first: FirstBurstLength and the iSER keys depend on their results.
        for (KeyValue kv : keys) {
            if (kv.key().equals(TextKey.MAX_BURST_LENGTH.wireName())
                    || kv.key().equals(TextKey.RDMA_EXTENSIONS.wireName())) {
                LoginFailure f = processKey(kv, stage, response);
                if (f != null) {
                    return f;
                }
            }
        }
        for (KeyValue kv : keys) {
            if (!kv.key().equals(TextKey.MAX_BURST_LENGTH.wireName())
                    && !kv.key().equals(TextKey.RDMA_EXTENSIONS.wireName())) {
                LoginFailure f = processKey(kv, stage, response);
                if (f != null) {
                    return f;
                }
            }
        }
        return null;
    }

    private LoginFailure processKey(KeyValue kv, int stage, List<KeyValue> response) {
        String name = kv.key();
        String value = kv.value();
        TextKey key = TextKey.byName(name);
        if (key != null && offers.containsKey(key)) {
            return answer(key, value);
        }
        if (!seen.add(name)) {
            if (isIdentity(key) && value.equals(values.get(key))) {
                return null; // libiscsi repeats its identity in the operational stage after CHAP: same value, no-op
            }
            return LoginFailure.initiatorError("key " + name + " repeated in the login");
        }
        if (key == null) {
            response.add(new KeyValue(name, KeyRules.NOT_UNDERSTOOD));
            return null;
        }
        if (key.sender() == TextKey.Sender.TARGET) {
            return LoginFailure.initiatorError("key " + name + " is sent by targets only");
        }
        switch (key.phase()) {
            case SECURITY -> {
                if (stage != SECURITY_STAGE) {
                    return LoginFailure.initiatorError("security key " + name + " in the operational stage");
                }
                if (key == TextKey.AUTH_METHOD) {
                    authMethodAnswer = KeyRules.list(value, authMethods);
                    response.add(new KeyValue(name, authMethodAnswer));
                    if (!KeyRules.REJECT.equals(authMethodAnswer)) {
                        values.put(key, authMethodAnswer);
                    }
                } else {
                    authKeys.add(kv);
                }
                return null;
            }
            case OPERATIONAL, LEADING_ONLY -> {
                if (stage != OPERATIONAL_STAGE) {
                    return LoginFailure.initiatorError("operational key " + name + " in the security stage");
                }
            }
            case FULL_FEATURE -> {
                response.add(new KeyValue(name, KeyRules.IRRELEVANT));
                return null;
            }
            case ANY -> {}
        }
        if ((sessionType == SessionType.DISCOVERY && key.irrelevantInDiscovery())
                || (key.phase() == TextKey.Phase.LEADING_ONLY && !leading)
                || (isIserOnly(key) && !KeyRules.YES.equals(value(TextKey.RDMA_EXTENSIONS)))) {
            response.add(new KeyValue(name, KeyRules.IRRELEVANT));
            return null;
        }
        if (key.rule() == TextKey.Rule.DECLARATIVE) {
            if (key.max() > key.min() && !KeyRules.inRange(key, value)) {
                return LoginFailure.initiatorError(name + "=" + value + " outside " + key.min() + ".." + key.max());
            }
            if (key == TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH && segmentDeclared) {
                return null; // the target's declaration is the outcome
            }
            values.put(key, value);
            return null;
        }
        String answer = KeyRules.respond(key, value, targetValue(key));
        response.add(new KeyValue(name, answer));
        if (!KeyRules.REJECT.equals(answer)) {
            values.put(key, answer);
        }
        return null;
    }

    private static boolean isIdentity(TextKey key) {
        return key == TextKey.INITIATOR_NAME
                || key == TextKey.TARGET_NAME
                || key == TextKey.SESSION_TYPE
                || key == TextKey.INITIATOR_ALIAS;
    }

    private static boolean isIserOnly(TextKey key) {
        return key == TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH
                || key == TextKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH
                || key == TextKey.MAX_OUTSTANDING_UNEXPECTED_PDUS;
    }

    /** The target's value for a key; FirstBurstLength never above the MaxBurstLength outcome (RFC 7143 13.14). */
    private String targetValue(TextKey key) {
        String ours = KeyRules.targetValue(key, limits);
        if (key == TextKey.FIRST_BURST_LENGTH) {
            long cap = Math.min(KeyRules.parseNumber(ours), KeyRules.parseNumber(value(TextKey.MAX_BURST_LENGTH)));
            return Long.toString(cap);
        }
        return ours;
    }

    private LoginFailure answer(TextKey key, String value) {
        String offer = offers.remove(key);
        if (KeyRules.REJECT.equals(value)
                || KeyRules.NOT_UNDERSTOOD.equals(value)
                || KeyRules.IRRELEVANT.equals(value)) {
            return null; // the key keeps its default (RFC 7143 6.2.1)
        }
        if (!KeyRules.acceptsAnswer(key, offer, value)) {
            return LoginFailure.initiatorError(
                    "answer " + key.wireName() + "=" + value + " to the offer " + offer + " breaks its rule");
        }
        values.put(key, value);
        return null;
    }

    /**
     * Offers the keys the initiator left at a default the target cannot accept (operational stage, before the
     * transit to full feature phase). With {@code dryRun} only counts them. Returns how many keys are offered.
     */
    int makeOffers(List<KeyValue> response, boolean dryRun) {
        int count = 0;
        if (!negotiated(TextKey.HEADER_DIGEST) && !limits.headerDigests().contains("None")) {
            count += offer(TextKey.HEADER_DIGEST, String.join(",", limits.headerDigests()), response, dryRun);
        }
        if (!negotiated(TextKey.DATA_DIGEST) && !limits.dataDigests().contains("None")) {
            count += offer(TextKey.DATA_DIGEST, String.join(",", limits.dataDigests()), response, dryRun);
        }
        if (sessionType == SessionType.DISCOVERY || !leading) {
            return count;
        }
        long maxBurst = KeyRules.parseNumber(value(TextKey.MAX_BURST_LENGTH));
        if (!negotiated(TextKey.MAX_BURST_LENGTH) && limits.maxBurstLength() < maxBurst) {
            maxBurst = limits.maxBurstLength();
            count += offer(TextKey.MAX_BURST_LENGTH, Long.toString(maxBurst), response, dryRun);
        }
        long firstBurst = Math.min(limits.firstBurstLength(), maxBurst);
        if (!negotiated(TextKey.FIRST_BURST_LENGTH)
                && firstBurst < KeyRules.parseNumber(value(TextKey.FIRST_BURST_LENGTH))) {
            count += offer(TextKey.FIRST_BURST_LENGTH, Long.toString(firstBurst), response, dryRun);
        }
        if (!negotiated(TextKey.IMMEDIATE_DATA) && !limits.immediateData()) {
            count += offer(TextKey.IMMEDIATE_DATA, KeyRules.NO, response, dryRun);
        }
        return count;
    }

    private boolean negotiated(TextKey key) {
        return seen.contains(key.wireName()) || everOffered.contains(key);
    }

    private int offer(TextKey key, String value, List<KeyValue> response, boolean dryRun) {
        if (!dryRun) {
            offers.put(key, value);
            everOffered.add(key);
            response.add(new KeyValue(key.wireName(), value));
        }
        return 1;
    }

    /**
     * RFC 7145 6, once RDMAExtensions=Yes holds (only in the leading login of a normal session: the key is
     * leading-only and irrelevant in discovery): declares TargetRecvDataSegmentLength, the largest data segment the
     * target receives in a control PDU; an initiator's own TargetRecvDataSegmentLength (what it means to send) lowers
     * it, and the declared value is the outcome. Declares MaxOutstandingUnexpectedPDUs only to an initiator that
     * declared it: open-iscsi fails the login on a key it does not know, and this is one.
     */
    void declareIserKeys(List<KeyValue> response) {
        if (!KeyRules.YES.equals(value(TextKey.RDMA_EXTENSIONS))) {
            return;
        }
        if (!segmentDeclared) {
            segmentDeclared = true;
            long segment = limits.maxRecvDataSegmentLength();
            if (has(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH)) {
                segment = Math.min(segment, KeyRules.parseNumber(value(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH)));
            }
            String declared = Long.toString(segment);
            values.put(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH, declared);
            response.add(new KeyValue(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH.wireName(), declared));
        }
        if (!unexpectedPdusDeclared
                && limits.maxOutstandingUnexpectedPdus() > 0
                && has(TextKey.MAX_OUTSTANDING_UNEXPECTED_PDUS)) {
            unexpectedPdusDeclared = true;
            response.add(new KeyValue(
                    TextKey.MAX_OUTSTANDING_UNEXPECTED_PDUS.wireName(),
                    Integer.toString(limits.maxOutstandingUnexpectedPdus())));
        }
    }

    boolean hasPendingOffers() {
        return !offers.isEmpty();
    }

    /** The AuthMethod answer of the last processed text, or null if it had none. */
    String authMethodAnswer() {
        return authMethodAnswer;
    }

    List<KeyValue> takeAuthKeys() {
        List<KeyValue> keys = List.copyOf(authKeys);
        authKeys.clear();
        return keys;
    }

    /** The outcome so far: the negotiated or declared value, else the key's default. */
    String value(TextKey key) {
        String v = values.get(key);
        return v != null ? v : key.defaultValue();
    }

    /** Whether the initiator declared or negotiated the key (or answered the target's offer of it). */
    boolean has(TextKey key) {
        return values.containsKey(key);
    }

    Map<TextKey, String> values() {
        return values;
    }
}
