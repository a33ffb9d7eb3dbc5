package io.numaiscsi.proto;

/**
 * SAM-5 single-level LUN structure in the 8-byte LUN field (big-endian long, byte 0 most
 * significant). LUNs below 256 use the peripheral device addressing method (bus 0), larger ones
 * up to 16383 the flat space method, as the Linux initiator does (scsilun_to_int).
 */
public final class Lun {
    public static final int MAX_PERIPHERAL = 255;
    public static final int MAX_FLAT = 16383;
    private static final int METHOD_PERIPHERAL = 0;
    private static final int METHOD_FLAT = 1;
    private static final long SECOND_LEVEL_MASK = 0x0000_ffff_ffff_ffffL;

    private Lun() {}

    /** The LUN number, or -1 for an addressing method or level this target does not support. */
    public static int decode(long raw) {
        if ((raw & SECOND_LEVEL_MASK) != 0) {
            return -1;
        }
        int first = (int) (raw >>> 48);
        int method = first >>> 14;
        if (method == METHOD_PERIPHERAL) {
            // Bus identifier (byte 0, low 6 bits) must be 0.
            return (first & 0x3f00) == 0 ? first & 0xff : -1;
        }
        if (method == METHOD_FLAT) {
            return first & 0x3fff;
        }
        return -1;
    }

    public static long encode(int lun) {
        if (lun < 0 || lun > MAX_FLAT) {
            throw new IllegalArgumentException("LUN out of range 0.." + MAX_FLAT + ": " + lun);
        }
        long first = lun <= MAX_PERIPHERAL ? lun : (METHOD_FLAT << 14) | lun;
        return first << 48;
    }
}
