package io.numaiscsi.scsi;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The iSCSI TransportID (SPC-4 7.6.4.6): protocol identifier 5h, then the initiator's iSCSI name, NUL terminated and
 * padded to a multiple of 4 bytes. Format 00b holds the name alone (an initiator device); format 01b names one
 * initiator port, {@code <iSCSI name>,i,0x<ISID in hex>}.
 */
final class TransportId {
    static final int ISCSI = 0x5;
    static final int FORMAT_DEVICE_NAME = 0;
    static final int FORMAT_PORT_NAME = 1;
    /** RFC 7143: an iSCSI name is at most 223 bytes. */
    private static final int MAX_NAME_BYTES = 223;

    private static final String PORT_SEPARATOR = ",i,0x";

    private TransportId() {}

    /** Format 01b for the nexus's initiator port (READ FULL STATUS). */
    static byte[] encode(ItNexus nexus) {
        byte[] name = nexus.initiatorPortName().getBytes(StandardCharsets.UTF_8);
        int padded = (name.length + 1 + 3) & ~3;
        byte[] id = new byte[4 + padded];
        id[0] = (byte) (FORMAT_PORT_NAME << 6 | ISCSI);
        id[2] = (byte) (padded >>> 8);
        id[3] = (byte) padded;
        System.arraycopy(name, 0, id, 4, name.length);
        return id;
    }

    /**
     * The initiator port a format 01b TransportID of {@code length} bytes at {@code offset} names, joined to the target
     * port of {@code targetSide}; null when it is not one (another protocol, format 00b, which names no single port, a
     * length that disagrees with its ADDITIONAL LENGTH, a name without its NUL, a malformed ISID).
     */
    static ItNexus decodePort(byte[] b, int offset, int length, ItNexus targetSide) {
        if (length < 24 || (b[offset] & 0x0F) != ISCSI || (b[offset] & 0xC0) >>> 6 != FORMAT_PORT_NAME) {
            return null;
        }
        int additional = Cdb.u16(b, offset + 2);
        if (additional + 4 != length || additional % 4 != 0) {
            return null;
        }
        int start = offset + 4;
        int end = start;
        while (end < offset + length && b[end] != 0) {
            end++;
        }
        if (end == offset + length) {
            return null; // no NUL
        }
        String portName = new String(b, start, end - start, StandardCharsets.UTF_8);
        int separator = portName.toLowerCase(Locale.ROOT).indexOf(PORT_SEPARATOR);
        if (separator <= 0) {
            return null;
        }
        String name = portName.substring(0, separator);
        String isidHex = portName.substring(separator + PORT_SEPARATOR.length());
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES
                || isidHex.isEmpty()
                || isidHex.length() > 12) {
            return null;
        }
        long isid = 0;
        for (int i = 0; i < isidHex.length(); i++) {
            char c = isidHex.charAt(i);
            int digit = c < 0x80 ? Character.digit(c, 16) : -1;
            if (digit < 0) {
                return null;
            }
            isid = isid << 4 | digit;
        }
        return new ItNexus(name, isid, targetSide.targetName(), targetSide.targetPortalGroupTag());
    }
}
