package io.numaiscsi.proto.login;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ChapAuthenticatorTest {
    static final String USER = "alice";
    static final String SECRET = "initiator-secret-1";
    static final String TARGET_USER = "target-disk0";
    static final String TARGET_SECRET = "target-secret-22";

    private static ChapSecret secret(String name, String secret) {
        return new ChapSecret(name, secret.getBytes(StandardCharsets.UTF_8));
    }

    private static ChapAuthenticator oneWay() {
        return new ChapAuthenticator(secret(USER, SECRET), null, new Random(7));
    }

    private static ChapAuthenticator mutual() {
        return new ChapAuthenticator(secret(USER, SECRET), secret(TARGET_USER, TARGET_SECRET), new Random(7));
    }

    /** RFC 1994 4.1 computed here over one concatenated buffer, independently of the authenticator. */
    static byte[] md5(int id, String secret, byte[] challenge) throws Exception {
        byte[] s = secret.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[1 + s.length + challenge.length];
        all[0] = (byte) id;
        System.arraycopy(s, 0, all, 1, s.length);
        System.arraycopy(challenge, 0, all, 1 + s.length, challenge.length);
        return MessageDigest.getInstance("MD5").digest(all);
    }

    static String hex(byte[] b) {
        return "0x" + HexFormat.of().formatHex(b);
    }

    static String value(List<KeyValue> keys, String key) {
        for (KeyValue kv : keys) {
            if (kv.key().equals(key)) {
                return kv.value();
            }
        }
        return null;
    }

    /** Runs CHAP_A=5 and returns the target's (CHAP_I, CHAP_C). */
    private static Object[] challenge(ChapAuthenticator chap) {
        List<KeyValue> rsp = new ArrayList<>();
        assertEquals(AuthVerdict.CONTINUE, chap.start("iqn.x", "iqn.t", rsp));
        assertTrue(rsp.isEmpty());
        assertEquals(AuthVerdict.CONTINUE, chap.onKeys(List.of(new KeyValue("CHAP_A", "5")), rsp));
        assertEquals("5", value(rsp, "CHAP_A"));
        int id = Integer.parseInt(value(rsp, "CHAP_I"));
        String c = value(rsp, "CHAP_C");
        assertTrue(c.startsWith("0x"), c);
        return new Object[] {id, HexFormat.of().parseHex(c.substring(2))};
    }

    @Test
    void knownMd5VectorMatchesTheRfc1994Formula() throws Exception {
        // MD5(0x01 || "secretsecret" || 0x00..0x0f), computed with python's hashlib.
        byte[] challenge = new byte[16];
        for (int i = 0; i < 16; i++) {
            challenge[i] = (byte) i;
        }
        byte[] r = ChapAuthenticator.response(1, "secretsecret".getBytes(StandardCharsets.US_ASCII), challenge);
        assertArrayEquals(md5(1, "secretsecret", challenge), r);
        assertEquals(KNOWN_VECTOR, HexFormat.of().formatHex(r));
    }

    static final String KNOWN_VECTOR = "226dc576c33f04ff9c3a200ffe35f442";

    @Test
    void oneWayChapSucceedsWithTheRightResponse() throws Exception {
        ChapAuthenticator chap = oneWay();
        Object[] ic = challenge(chap);
        byte[] c = (byte[]) ic[1];
        assertTrue(c.length >= 16, "challenge of at least 16 bytes");
        List<KeyValue> rsp = new ArrayList<>();
        AuthVerdict v = chap.onKeys(
                List.of(new KeyValue("CHAP_N", USER), new KeyValue("CHAP_R", hex(md5((int) ic[0], SECRET, c)))), rsp);
        assertEquals(AuthVerdict.SUCCESS, v);
        assertTrue(rsp.isEmpty(), "no target keys without mutual CHAP");
        assertNull(chap.failureDetail());
    }

    @Test
    void responseMayComeInBase64OrUpperCaseHex() throws Exception {
        for (boolean base64 : new boolean[] {true, false}) {
            ChapAuthenticator chap = oneWay();
            Object[] ic = challenge(chap);
            byte[] r = md5((int) ic[0], SECRET, (byte[]) ic[1]);
            String encoded = base64
                    ? "0b" + Base64.getEncoder().encodeToString(r)
                    : "0X" + HexFormat.of().withUpperCase().formatHex(r);
            assertEquals(
                    AuthVerdict.SUCCESS,
                    chap.onKeys(
                            List.of(new KeyValue("CHAP_N", USER), new KeyValue("CHAP_R", encoded)), new ArrayList<>()),
                    encoded);
        }
    }

    static Stream<Arguments> badResponses() throws Exception {
        return Stream.of(
                Arguments.of("wrong secret", USER, "wrong-secret-xx", "wrong CHAP_R"),
                Arguments.of("wrong user", "mallory", SECRET, "CHAP_N=mallory"),
                Arguments.of("secret of the other direction", USER, TARGET_SECRET, "wrong CHAP_R"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badResponses")
    void wrongCredentialsFailWithoutNamingTheSecret(String label, String user, String secret, String detail)
            throws Exception {
        ChapAuthenticator chap = mutual();
        Object[] ic = challenge(chap);
        List<KeyValue> rsp = new ArrayList<>();
        AuthVerdict v = chap.onKeys(
                List.of(
                        new KeyValue("CHAP_N", user),
                        new KeyValue("CHAP_R", hex(md5((int) ic[0], secret, (byte[]) ic[1]))),
                        new KeyValue("CHAP_I", "9"),
                        new KeyValue("CHAP_C", "0x00112233445566778899aabbccddeeff")),
                rsp);
        assertEquals(AuthVerdict.FAIL, v);
        assertTrue(chap.failureDetail().contains(detail), chap.failureDetail());
        assertFalse(chap.failureDetail().contains(SECRET));
        assertFalse(chap.failureDetail().contains(TARGET_SECRET));
        assertNull(value(rsp, "CHAP_R"), "no target response to an unauthenticated initiator");
        assertEquals(AuthVerdict.FAIL, chap.onKeys(List.of(new KeyValue("CHAP_N", USER)), rsp), "no second try");
    }

    static Stream<String> malformedResponses() {
        return Stream.of("", "0x", "0b", "abcdef", "0xZZ", "0b!!!!", "0y1234", "5");
    }

    @ParameterizedTest
    @MethodSource("malformedResponses")
    void malformedChapRFails(String r) {
        ChapAuthenticator chap = oneWay();
        challenge(chap);
        assertEquals(
                AuthVerdict.FAIL,
                chap.onKeys(List.of(new KeyValue("CHAP_N", USER), new KeyValue("CHAP_R", r)), new ArrayList<>()));
    }

    static Stream<Arguments> algorithms() {
        return Stream.of(
                Arguments.of("5", true),
                Arguments.of("7,5", true),
                Arguments.of("6,7", false),
                Arguments.of("7", false),
                Arguments.of("", false),
                Arguments.of("55", false));
    }

    @ParameterizedTest(name = "CHAP_A={0}")
    @MethodSource("algorithms")
    void onlyMd5IsChosen(String offered, boolean accepted) {
        ChapAuthenticator chap = oneWay();
        List<KeyValue> rsp = new ArrayList<>();
        AuthVerdict v = chap.onKeys(List.of(new KeyValue("CHAP_A", offered)), rsp);
        assertEquals(accepted ? AuthVerdict.CONTINUE : AuthVerdict.FAIL, v);
        assertEquals(accepted ? "5" : "Reject", value(rsp, "CHAP_A"));
        assertEquals(accepted, value(rsp, "CHAP_C") != null);
    }

    @Test
    void responseBeforeTheChallengeFails() {
        ChapAuthenticator chap = oneWay();
        assertEquals(
                AuthVerdict.FAIL,
                chap.onKeys(List.of(new KeyValue("CHAP_N", USER), new KeyValue("CHAP_R", "0x00")), new ArrayList<>()));
        assertTrue(chap.failureDetail().contains("before CHAP_A"));
    }

    @Test
    void mutualChapAnswersWithTheTargetNameAndResponse() throws Exception {
        ChapAuthenticator chap = mutual();
        Object[] ic = challenge(chap);
        byte[] theirs = HexFormat.of().parseHex("0f1e2d3c4b5a69788796a5b4c3d2e1f00102030405060708090a0b0c0d0e0f10");
        List<KeyValue> rsp = new ArrayList<>();
        AuthVerdict v = chap.onKeys(
                List.of(
                        new KeyValue("CHAP_N", USER),
                        new KeyValue("CHAP_R", hex(md5((int) ic[0], SECRET, (byte[]) ic[1]))),
                        new KeyValue("CHAP_I", "200"),
                        new KeyValue("CHAP_C", hex(theirs))),
                rsp);
        assertEquals(AuthVerdict.SUCCESS, v, chap.failureDetail());
        assertEquals(TARGET_USER, value(rsp, "CHAP_N"));
        assertEquals(hex(md5(200, TARGET_SECRET, theirs)), value(rsp, "CHAP_R"));
    }

    @Test
    void reflectedChallengeIsRefused() throws Exception {
        ChapAuthenticator chap = mutual();
        Object[] ic = challenge(chap);
        byte[] ours = (byte[]) ic[1];
        List<KeyValue> rsp = new ArrayList<>();
        AuthVerdict v = chap.onKeys(
                List.of(
                        new KeyValue("CHAP_N", USER),
                        new KeyValue("CHAP_R", hex(md5((int) ic[0], SECRET, ours))),
                        new KeyValue("CHAP_I", Integer.toString((int) ic[0])),
                        new KeyValue("CHAP_C", "0b" + Base64.getEncoder().encodeToString(ours))),
                rsp);
        assertEquals(AuthVerdict.FAIL, v);
        assertTrue(chap.failureDetail().contains("reflects"), chap.failureDetail());
        assertNull(value(rsp, "CHAP_R"));
    }

    static Stream<Arguments> badMutualRequests() {
        return Stream.of(
                Arguments.of("9", null, "both CHAP_I and CHAP_C"),
                Arguments.of(null, "0x0102", "both CHAP_I and CHAP_C"),
                Arguments.of("256", "0x0102", "CHAP_I=256"),
                Arguments.of("-1", "0x0102", "CHAP_I=-1"),
                Arguments.of("9", "0x", "CHAP_C"),
                Arguments.of("9", "0x" + "00".repeat(1025), "1..1024"));
    }

    @ParameterizedTest
    @MethodSource("badMutualRequests")
    void malformedMutualRequestsFail(String id, String c, String detail) throws Exception {
        ChapAuthenticator chap = mutual();
        Object[] ic = challenge(chap);
        List<KeyValue> keys = new ArrayList<>(List.of(
                new KeyValue("CHAP_N", USER), new KeyValue("CHAP_R", hex(md5((int) ic[0], SECRET, (byte[]) ic[1])))));
        if (id != null) {
            keys.add(new KeyValue("CHAP_I", id));
        }
        if (c != null) {
            keys.add(new KeyValue("CHAP_C", c));
        }
        List<KeyValue> rsp = new ArrayList<>();
        assertEquals(AuthVerdict.FAIL, chap.onKeys(keys, rsp));
        assertTrue(chap.failureDetail().contains(detail), chap.failureDetail());
        assertNull(value(rsp, "CHAP_R"));
    }

    @Test
    void mutualRequestWithoutTargetCredentialsFails() throws Exception {
        ChapAuthenticator chap = oneWay();
        Object[] ic = challenge(chap);
        AuthVerdict v = chap.onKeys(
                List.of(
                        new KeyValue("CHAP_N", USER),
                        new KeyValue("CHAP_R", hex(md5((int) ic[0], SECRET, (byte[]) ic[1]))),
                        new KeyValue("CHAP_I", "1"),
                        new KeyValue("CHAP_C", "0x0102030405")),
                new ArrayList<>());
        assertEquals(AuthVerdict.FAIL, v);
        assertTrue(chap.failureDetail().contains("no mutual credentials"));
    }

    @Test
    void challengesAreFreshPerLogin() {
        SecureRandom random = new SecureRandom();
        ChapSecret s = secret(USER, SECRET);
        byte[] first = (byte[]) challenge(new ChapAuthenticator(s, null, random))[1];
        byte[] second = (byte[]) challenge(new ChapAuthenticator(s, null, random))[1];
        assertEquals(ChapAuthenticator.CHALLENGE_LENGTH, first.length);
        assertFalse(Arrays.equals(first, second));
    }

    @Test
    void sameSecretForBothDirectionsIsABug() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new ChapAuthenticator(secret(USER, SECRET), secret(TARGET_USER, SECRET), new Random()));
    }

    @Test
    void chapSecretNeverPrintsItsSecret() {
        String s = secret(USER, SECRET).toString();
        assertTrue(s.contains(USER));
        assertFalse(s.contains(SECRET));
    }

    static Stream<Arguments> binaryValues() {
        return Stream.of(
                Arguments.of("0x0102", new byte[] {1, 2}),
                Arguments.of("0X0a0B", new byte[] {10, 11}),
                Arguments.of("0x102", new byte[] {1, 2}),
                Arguments.of("0bAQI=", new byte[] {1, 2}),
                Arguments.of("0BAQID", new byte[] {1, 2, 3}),
                Arguments.of("0x", null),
                Arguments.of("0b", null),
                Arguments.of("0x0g", null),
                Arguments.of("1x01", null),
                Arguments.of("0bA", null));
    }

    @ParameterizedTest
    @MethodSource("binaryValues")
    void binaryValueDecoding(String text, byte[] expected) {
        byte[] got = BinaryValue.decode(text);
        if (expected == null) {
            assertNull(got, text);
        } else {
            assertNotNull(got, text);
            assertArrayEquals(expected, got, text);
        }
    }

    @Test
    void hexEncodingIsLowerCaseWithPrefix() {
        assertEquals("0x00ff10", BinaryValue.encodeHex(new byte[] {0, (byte) 0xff, 0x10}));
    }
}
