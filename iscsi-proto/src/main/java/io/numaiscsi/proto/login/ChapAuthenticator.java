package io.numaiscsi.proto.login;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * AuthMethod=CHAP, the target side (RFC 7143 12.1.3 over RFC 1994 with MD5): answers CHAP_A with CHAP_A=5, a random
 * CHAP_I and a 16-byte CHAP_C; checks CHAP_N and CHAP_R = MD5(CHAP_I || secret || CHAP_C) in constant time; when the
 * initiator also sends CHAP_I and CHAP_C (mutual CHAP) and its own response was right, answers with the target's
 * CHAP_N and CHAP_R, refusing a challenge that reflects the target's own. One instance per login.
 */
public final class ChapAuthenticator implements Authenticator {
    /** CHAP_A value of MD5 (RFC 1994, IANA PPP authentication algorithms). */
    static final String MD5 = "5";

    static final int CHALLENGE_LENGTH = 16;
    /** RFC 7143 12.1.3: challenges longer than 1024 bytes are refused. */
    static final int MAX_CHALLENGE_LENGTH = 1024;

    private static final int MD5_LENGTH = 16;

    private enum State {
        AWAIT_ALGORITHM,
        AWAIT_RESPONSE,
        DONE,
        FAILED
    }

    private final ChapSecret initiator;
    private final ChapSecret target;
    private final Random random;
    private State state = State.AWAIT_ALGORITHM;
    private int identifier;
    private byte[] challenge;
    private String failure;

    /**
     * @param initiator what the initiator must prove: its expected CHAP_N and the secret
     * @param target    what the target answers mutual CHAP with, or null (mutual CHAP requests then fail)
     * @param random    a SecureRandom in production; the challenge and identifier come from it
     */
    public ChapAuthenticator(ChapSecret initiator, ChapSecret target, Random random) {
        this.initiator = Objects.requireNonNull(initiator, "initiator");
        this.target = target;
        this.random = Objects.requireNonNull(random, "random");
        if (target != null && MessageDigest.isEqual(initiator.secret(), target.secret())) {
            throw new IllegalArgumentException("the same CHAP secret for both directions (RFC 7143 12.1.3)");
        }
    }

    @Override
    public String method() {
        return "CHAP";
    }

    @Override
    public AuthVerdict start(String initiatorName, String targetName, List<KeyValue> response) {
        return AuthVerdict.CONTINUE; // the initiator speaks first, with CHAP_A
    }

    @Override
    public AuthVerdict onKeys(List<KeyValue> keys, List<KeyValue> response) {
        return switch (state) {
            case AWAIT_ALGORITHM -> onAlgorithm(keys, response);
            case AWAIT_RESPONSE -> onResponse(keys, response);
            case DONE, FAILED -> fail("CHAP keys after the exchange ended");
        };
    }

    @Override
    public String failureDetail() {
        return failure;
    }

    private AuthVerdict onAlgorithm(List<KeyValue> keys, List<KeyValue> response) {
        String offered = null;
        for (KeyValue kv : keys) {
            if (!kv.key().equals(TextKey.CHAP_A.wireName())) {
                return fail(kv.key() + " before CHAP_A");
            }
            offered = kv.value();
        }
        if (!Arrays.asList(offered.split(",", -1)).contains(MD5)) {
            response.add(new KeyValue(TextKey.CHAP_A.wireName(), KeyRules.REJECT));
            return fail("CHAP_A=" + offered + " offers no algorithm the target supports (5, MD5)");
        }
        identifier = random.nextInt(256);
        challenge = new byte[CHALLENGE_LENGTH];
        random.nextBytes(challenge);
        response.add(new KeyValue(TextKey.CHAP_A.wireName(), MD5));
        response.add(new KeyValue(TextKey.CHAP_I.wireName(), Integer.toString(identifier)));
        response.add(new KeyValue(TextKey.CHAP_C.wireName(), BinaryValue.encodeHex(challenge)));
        state = State.AWAIT_RESPONSE;
        return AuthVerdict.CONTINUE;
    }

    private AuthVerdict onResponse(List<KeyValue> keys, List<KeyValue> response) {
        String name = null;
        String answer = null;
        String mutualId = null;
        String mutualChallenge = null;
        for (KeyValue kv : keys) {
            switch (kv.key()) {
                case "CHAP_N" -> name = kv.value();
                case "CHAP_R" -> answer = kv.value();
                case "CHAP_I" -> mutualId = kv.value();
                case "CHAP_C" -> mutualChallenge = kv.value();
                default -> {
                    return fail(kv.key() + " where CHAP_N and CHAP_R were expected");
                }
            }
        }
        if (name == null || answer == null) {
            return fail("CHAP_N and CHAP_R expected together, got " + names(keys));
        }
        byte[] received = BinaryValue.decode(answer);
        if (received == null) {
            return fail("CHAP_R is not a binary value");
        }
        byte[] expected = response(identifier, initiator.secret(), challenge);
        // Both checks always run, the response comparison in constant time: no timing hint which one failed.
        boolean nameMatches = name.equals(initiator.name());
        boolean responseMatches = MessageDigest.isEqual(expected, received);
        if (!nameMatches) {
            return fail("CHAP_N=" + name + " is not the configured user name");
        }
        if (!responseMatches) {
            return fail("wrong CHAP_R for CHAP_N=" + name);
        }
        if (mutualId == null && mutualChallenge == null) {
            state = State.DONE;
            return AuthVerdict.SUCCESS;
        }
        return answerMutual(mutualId, mutualChallenge, response);
    }

    private AuthVerdict answerMutual(String id, String challengeValue, List<KeyValue> response) {
        if (id == null || challengeValue == null) {
            return fail("mutual CHAP needs both CHAP_I and CHAP_C");
        }
        if (target == null) {
            return fail("the initiator asks for mutual CHAP but the target has no mutual credentials");
        }
        int mutualIdentifier = parseIdentifier(id);
        if (mutualIdentifier < 0) {
            return fail("CHAP_I=" + id + " is not 0..255");
        }
        byte[] theirs = BinaryValue.decode(challengeValue);
        if (theirs == null || theirs.length > MAX_CHALLENGE_LENGTH) {
            return fail("CHAP_C is not a binary value of 1.." + MAX_CHALLENGE_LENGTH + " bytes");
        }
        if (Arrays.equals(theirs, challenge)) {
            return fail("the initiator's CHAP_C reflects the target's challenge");
        }
        response.add(new KeyValue(TextKey.CHAP_N.wireName(), target.name()));
        response.add(new KeyValue(
                TextKey.CHAP_R.wireName(), BinaryValue.encodeHex(response(mutualIdentifier, target.secret(), theirs))));
        state = State.DONE;
        return AuthVerdict.SUCCESS;
    }

    /** RFC 1994 4.1: MD5 over the identifier octet, the secret and the challenge. */
    static byte[] response(int identifier, byte[] secret, byte[] challenge) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((byte) identifier);
            md5.update(secret);
            md5.update(challenge);
            byte[] digest = md5.digest();
            assert digest.length == MD5_LENGTH;
            return digest;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every Java platform", e);
        }
    }

    /** RFC 7143 numerical value: decimal or 0x-hex, 0..255; -1 otherwise. */
    private static int parseIdentifier(String value) {
        try {
            int v = value.startsWith("0x") || value.startsWith("0X")
                    ? Integer.parseInt(value.substring(2), 16)
                    : Integer.parseInt(value);
            return v >= 0 && v <= 255 ? v : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String names(List<KeyValue> keys) {
        StringBuilder sb = new StringBuilder();
        for (KeyValue kv : keys) {
            sb.append(sb.length() == 0 ? "" : ",").append(kv.key());
        }
        return sb.length() == 0 ? "no keys" : sb.toString();
    }

    private AuthVerdict fail(String why) {
        state = State.FAILED;
        failure = why;
        return AuthVerdict.FAIL;
    }
}
