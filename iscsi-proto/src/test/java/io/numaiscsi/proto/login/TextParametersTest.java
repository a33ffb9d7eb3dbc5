package io.numaiscsi.proto.login;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TextParametersTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("missing '='", bytes("InitiatorName\0")),
                Arguments.of("empty key", bytes("=value\0")),
                Arguments.of("key of 64 bytes", bytes("K".repeat(64) + "=1\0")),
                Arguments.of("space in key", bytes("Bad Key=1\0")),
                Arguments.of("value of 256 bytes", bytes("InitiatorAlias=" + "a".repeat(256) + "\0")),
                Arguments.of("unknown key value of 256 bytes", bytes("X-vendor=" + "a".repeat(256) + "\0")),
                Arguments.of("CHAP_C over 8192 bytes", bytes("CHAP_C=0x" + "a".repeat(8191) + "\0")),
                Arguments.of("duplicate key", bytes("MaxBurstLength=512\0MaxBurstLength=1024\0")),
                Arguments.of("invalid UTF-8", new byte[] {'A', '=', (byte) 0xc3, (byte) 0x28, 0}),
                Arguments.of("truncated UTF-8", new byte[] {'A', '=', (byte) 0xe2, (byte) 0x82, 0}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void rejectsMalformedText(String name, byte[] data) {
        assertThrows(TextFormatException.class, () -> TextParameters.parse(data, 0, data.length));
    }

    static Stream<Arguments> wellFormed() {
        return Stream.of(
                Arguments.of("one pair", bytes("A=1\0"), List.of(new KeyValue("A", "1"))),
                Arguments.of(
                        "order kept", bytes("B=2\0A=1\0"), List.of(new KeyValue("B", "2"), new KeyValue("A", "1"))),
                Arguments.of("empty value", bytes("SendTargets=\0"), List.of(new KeyValue("SendTargets", ""))),
                Arguments.of("'=' inside value", bytes("X-a=b=c\0"), List.of(new KeyValue("X-a", "b=c"))),
                Arguments.of("padding NULs skipped", bytes("A=1\0\0\0\0"), List.of(new KeyValue("A", "1"))),
                Arguments.of(
                        "last NUL missing", bytes("A=1\0B=2"), List.of(new KeyValue("A", "1"), new KeyValue("B", "2"))),
                Arguments.of(
                        "key of 63 bytes", bytes("K".repeat(63) + "=1\0"), List.of(new KeyValue("K".repeat(63), "1"))),
                Arguments.of(
                        "UTF-8 alias",
                        bytes("InitiatorAlias=h\u00f6st\0"),
                        List.of(new KeyValue("InitiatorAlias", "h\u00f6st"))),
                Arguments.of("X# key", bytes("X#com.example=1\0"), List.of(new KeyValue("X#com.example", "1"))),
                Arguments.of("empty", new byte[0], List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wellFormed")
    void parsesWellFormedText(String name, byte[] data, List<KeyValue> expected) throws TextFormatException {
        assertEquals(expected, TextParameters.parse(data, 0, data.length));
    }

    @Test
    void longBinaryValueAllowedForChap() throws TextFormatException {
        byte[] data = bytes("CHAP_C=0x" + "a".repeat(2048) + "\0");
        assertEquals(2050, TextParameters.parse(data).get(0).value().length());
    }

    @Test
    void repeatsAllowedOnlyWhenAsked() throws TextFormatException {
        byte[] data = bytes("TargetName=a\0TargetAddress=x\0TargetName=b\0");
        assertThrows(TextFormatException.class, () -> TextParameters.parse(data));
        assertEquals(3, TextParameters.parse(data, 0, data.length, true).size());
    }

    @Test
    void parsesWithinOffsetAndLength() throws TextFormatException {
        byte[] data = bytes("XXA=1\0B=2\0YY");
        assertEquals(List.of(new KeyValue("A", "1"), new KeyValue("B", "2")), TextParameters.parse(data, 2, 8));
    }

    @Test
    void encodeRoundTrips() throws TextFormatException {
        List<KeyValue> pairs = List.of(
                new KeyValue("HeaderDigest", "None"),
                new KeyValue("TargetAlias", "d\u00efsk"),
                new KeyValue("SendTargets", ""));
        byte[] data = TextParameters.encode(pairs);
        assertEquals(0, data[data.length - 1]);
        assertEquals(pairs, TextParameters.parse(data));
        assertArrayEquals(bytes("A=1\0"), TextParameters.encode(List.of(new KeyValue("A", "1"))));
        assertTrue(TextParameters.encode(List.of()).length == 0);
    }
}
