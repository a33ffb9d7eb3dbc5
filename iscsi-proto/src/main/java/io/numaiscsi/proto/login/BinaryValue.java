package io.numaiscsi.proto.login;

import java.util.Base64;

/**
 * RFC 7143 6.1 binary-value: a hex-constant ("0x"/"0X" and hex digits, an odd count meaning a leading zero nibble)
 * or a base64-constant ("0b"/"0B" and RFC 4648 base64). Used for CHAP_C and CHAP_R.
 */
final class BinaryValue {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private BinaryValue() {}

    /** The bytes of a binary value, or null when it is not one (or holds no byte). */
    static byte[] decode(String value) {
        if (value.length() < 3 || value.charAt(0) != '0') {
            return null;
        }
        char form = value.charAt(1);
        if (form == 'x' || form == 'X') {
            return hex(value, 2);
        }
        if (form == 'b' || form == 'B') {
            try {
                byte[] bytes = Base64.getDecoder().decode(value.substring(2));
                return bytes.length == 0 ? null : bytes;
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    private static byte[] hex(String value, int start) {
        int digits = value.length() - start;
        byte[] out = new byte[(digits + 1) / 2];
        int i = start;
        int o = 0;
        if (digits % 2 == 1) {
            int low = Character.digit(value.charAt(i++), 16);
            if (low < 0) {
                return null;
            }
            out[o++] = (byte) low;
        }
        while (i < value.length()) {
            int high = Character.digit(value.charAt(i), 16);
            int low = Character.digit(value.charAt(i + 1), 16);
            if (high < 0 || low < 0) {
                return null;
            }
            out[o++] = (byte) (high << 4 | low);
            i += 2;
        }
        return out;
    }

    /** "0x" and two lower-case hex digits per byte: the form every initiator reads (libiscsi reads only this one). */
    static String encodeHex(byte[] bytes) {
        char[] out = new char[2 + bytes.length * 2];
        out[0] = '0';
        out[1] = 'x';
        for (int i = 0; i < bytes.length; i++) {
            out[2 + 2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[3 + 2 * i] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
