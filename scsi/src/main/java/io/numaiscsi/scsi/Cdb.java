package io.numaiscsi.scsi;

/** Big-endian field access on CDB and parameter byte arrays. */
final class Cdb {
    private Cdb() {}

    static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }

    static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
    }

    static int u24(byte[] b, int i) {
        return (b[i] & 0xFF) << 16 | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF);
    }

    static long u32(byte[] b, int i) {
        return ((long) u16(b, i) << 16 | u16(b, i + 2)) & 0xFFFFFFFFL;
    }

    static long u64(byte[] b, int i) {
        return u32(b, i) << 32 | u32(b, i + 4);
    }

    static void putInt(byte[] b, int i, int v) {
        b[i] = (byte) (v >>> 24);
        b[i + 1] = (byte) (v >>> 16);
        b[i + 2] = (byte) (v >>> 8);
        b[i + 3] = (byte) v;
    }

    static void putLong(byte[] b, int i, long v) {
        putInt(b, i, (int) (v >>> 32));
        putInt(b, i + 4, (int) v);
    }

    /** CDB length from the group code (SPC-4 4.2.5.1); -1 for groups we do not implement. */
    static int lengthOf(int opcode) {
        return switch (opcode >>> 5) {
            case 0 -> 6;
            case 1, 2 -> 10;
            case 4 -> 16;
            case 5 -> 12;
            default -> -1;
        };
    }
}
