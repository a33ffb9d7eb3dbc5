package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * Additional Header Segments (RFC 7143 11.2.2): each is AHSLength (2 bytes, counting from byte 3),
 * AHSType (1), AHS-specific (1), data, padded to 4 bytes. Accessors take absolute indexes within
 * the AHS buffer as {@link Pdu#ahs()} returns it (readable region).
 */
public final class Ahs {
    public static final int TYPE_EXTENDED_CDB = 1;
    public static final int TYPE_BIDI_READ_EXPECTED_DATA_LENGTH = 2;
    /** Offset of the extra CDB bytes (CDB byte 16 onwards) within an Extended CDB AHS. */
    public static final int EXTENDED_CDB_OFFSET = 4;

    private static final int HEADER = 3;

    private Ahs() {}

    public static int ahsLength(ByteBuf ahs, int index) {
        return ahs.getUnsignedShort(index);
    }

    public static int type(ByteBuf ahs, int index) {
        return ahs.getUnsignedByte(index + 2);
    }

    /** Bytes this AHS occupies, padding included. */
    public static int totalLength(ByteBuf ahs, int index) {
        return (HEADER + ahsLength(ahs, index) + 3) & ~3;
    }

    /** True when the segments exactly tile the readable bytes. */
    public static boolean valid(ByteBuf ahs) {
        int i = ahs.readerIndex();
        int end = ahs.writerIndex();
        while (i < end) {
            if (end - i < 4) {
                return false;
            }
            i += totalLength(ahs, i);
        }
        return i == end;
    }

    /** Index of the first AHS of {@code type}, or -1 (also when the AHS is malformed). */
    public static int find(ByteBuf ahs, int type) {
        if (ahs == null) {
            return -1;
        }
        int i = ahs.readerIndex();
        int end = ahs.writerIndex();
        while (end - i >= 4) {
            int next = i + totalLength(ahs, i);
            if (next > end) {
                return -1;
            }
            if (type(ahs, i) == type) {
                return i;
            }
            i = next;
        }
        return -1;
    }

    /** CDB bytes carried by the Extended CDB AHS at {@code index} (total CDB length - 16). */
    public static int extendedCdbLength(ByteBuf ahs, int index) {
        return ahsLength(ahs, index) - 1;
    }

    public static int bidiReadExpectedDataLength(ByteBuf ahs, int index) {
        return ahs.getInt(index + 4);
    }
}
