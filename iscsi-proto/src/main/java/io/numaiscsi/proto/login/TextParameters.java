package io.numaiscsi.proto.login;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Codec of text data segments: "key=value\0" pairs (RFC 7143 6.1). Off the hot path: login and text only. */
public final class TextParameters {
    static final int MAX_KEY_LENGTH = 63;
    static final int DEFAULT_MAX_VALUE_LENGTH = 255;

    private TextParameters() {}

    /**
     * Parses the pairs in order. Empty strings between NULs (padding) are skipped; a last pair without its NUL is
     * accepted. Rejects a pair without '=', an empty or over-long key name, a key with characters outside RFC 7143
     * 6.1, an over-long value (255 bytes, or the key's own limit), invalid UTF-8 and a key given twice.
     */
    public static List<KeyValue> parse(byte[] data, int offset, int length) throws TextFormatException {
        return parse(data, offset, length, false);
    }

    /** As {@link #parse(byte[], int, int)}; {@code allowRepeats} for SendTargets responses (TargetName, TargetAddress). */
    static List<KeyValue> parse(byte[] data, int offset, int length, boolean allowRepeats) throws TextFormatException {
        if (offset < 0 || length < 0 || offset + length > data.length) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " outside " + data.length);
        }
        List<KeyValue> pairs = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int end = offset + length;
        int start = offset;
        while (start < end) {
            int nul = start;
            while (nul < end && data[nul] != 0) {
                nul++;
            }
            if (nul > start) {
                KeyValue pair = parsePair(data, start, nul);
                if (!seen.add(pair.key()) && !allowRepeats) {
                    throw new TextFormatException("key " + pair.key() + " given twice");
                }
                pairs.add(pair);
            }
            start = nul + 1;
        }
        return Collections.unmodifiableList(pairs);
    }

    public static List<KeyValue> parse(byte[] data) throws TextFormatException {
        return parse(data, 0, data.length);
    }

    /** Encodes each pair as "key=value\0", UTF-8. */
    public static byte[] encode(List<KeyValue> pairs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * pairs.size());
        for (KeyValue pair : pairs) {
            out.writeBytes(pair.key().getBytes(StandardCharsets.UTF_8));
            out.write('=');
            out.writeBytes(pair.value().getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    private static KeyValue parsePair(byte[] data, int start, int end) throws TextFormatException {
        int eq = start;
        while (eq < end && data[eq] != '=') {
            eq++;
        }
        if (eq == end) {
            throw new TextFormatException("no '=' in \"" + printable(data, start, end) + "\"");
        }
        int keyLength = eq - start;
        if (keyLength == 0) {
            throw new TextFormatException("empty key name");
        }
        if (keyLength > MAX_KEY_LENGTH) {
            throw new TextFormatException("key name of " + keyLength + " bytes, limit " + MAX_KEY_LENGTH);
        }
        for (int i = start; i < eq; i++) {
            if (!isKeyChar(data[i])) {
                throw new TextFormatException("invalid character in key name \"" + printable(data, start, eq) + "\"");
            }
        }
        // Key characters are ASCII, checked above.
        String key = new String(data, start, keyLength, StandardCharsets.US_ASCII);
        int valueLength = end - eq - 1;
        TextKey known = TextKey.byName(key);
        int limit = known != null ? known.maxValueLength() : DEFAULT_MAX_VALUE_LENGTH;
        if (valueLength > limit) {
            throw new TextFormatException("value of " + key + " has " + valueLength + " bytes, limit " + limit);
        }
        return new KeyValue(key, decodeUtf8(data, eq + 1, valueLength, key));
    }

    private static boolean isKeyChar(byte b) {
        return (b >= 'a' && b <= 'z')
                || (b >= 'A' && b <= 'Z')
                || (b >= '0' && b <= '9')
                || b == '.'
                || b == '-'
                || b == '+'
                || b == '@'
                || b == '_'
                || b == '#';
    }

    private static String decodeUtf8(byte[] data, int offset, int length, String key) throws TextFormatException {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(data, offset, length)).toString();
        } catch (CharacterCodingException e) {
            throw new TextFormatException("value of " + key + " is not UTF-8");
        }
    }

    private static String printable(byte[] data, int start, int end) {
        StringBuilder sb = new StringBuilder();
        for (int i = start; i < end && sb.length() < 40; i++) {
            int c = data[i] & 0xff;
            sb.append(c >= 0x20 && c < 0x7f ? (char) c : '?');
        }
        return sb.toString();
    }
}
