package io.numaiscsi.iser;

import java.nio.ByteBuffer;

/**
 * The iSER header in front of every iSCSI control-type PDU in a Send (RFC 7145 section 9.2), 28 bytes:
 * byte 0 opcode (high nibble) and flags, bytes 1-3 reserved, then Write STag, Write Base Offset, Read STag,
 * Read Base Offset, all big-endian. Static accessors over a ByteBuffer at an absolute index; nothing moves
 * the buffer's position.
 */
public final class IserHeader {
    public static final int LENGTH = 28;

    /** Opcode nibble values (RFC 7145 9.1). */
    public static final int OPCODE_CONTROL = 0x1;

    public static final int OPCODE_HELLO = 0x2;
    public static final int OPCODE_HELLO_REPLY = 0x3;

    /** Write STag Valid: the initiator advertised a buffer to RDMA Read the data-out from. */
    public static final int WSV = 0x08;
    /** Read STag Valid: the initiator advertised a buffer for the data-in RDMA Write. */
    public static final int RSV = 0x04;

    static final int WRITE_STAG_OFFSET = 4;
    static final int WRITE_BASE_OFFSET = 8;
    static final int READ_STAG_OFFSET = 16;
    static final int READ_BASE_OFFSET = 20;

    /** What the first byte announces. */
    public enum Kind {
        CONTROL,
        HELLO,
        HELLO_REPLY,
        INVALID
    }

    private IserHeader() {}

    public static Kind kind(ByteBuffer b, int at) {
        int opcode = (b.get(at) >> 4) & 0xf;
        return switch (opcode) {
            case OPCODE_CONTROL -> Kind.CONTROL;
            case OPCODE_HELLO -> Kind.HELLO;
            case OPCODE_HELLO_REPLY -> Kind.HELLO_REPLY;
            default -> Kind.INVALID;
        };
    }

    public static boolean writeStagValid(ByteBuffer b, int at) {
        return (b.get(at) & WSV) != 0;
    }

    public static boolean readStagValid(ByteBuffer b, int at) {
        return (b.get(at) & RSV) != 0;
    }

    public static int writeStag(ByteBuffer b, int at) {
        return b.getInt(at + WRITE_STAG_OFFSET);
    }

    public static long writeBaseOffset(ByteBuffer b, int at) {
        return b.getLong(at + WRITE_BASE_OFFSET);
    }

    public static int readStag(ByteBuffer b, int at) {
        return b.getInt(at + READ_STAG_OFFSET);
    }

    public static long readBaseOffset(ByteBuffer b, int at) {
        return b.getLong(at + READ_BASE_OFFSET);
    }

    /** The header of a control-type PDU the target sends: no STags (a target never advertises buffers). */
    public static void putControl(ByteBuffer b, int at) {
        b.putLong(at, 0L);
        b.putLong(at + 8, 0L);
        b.putLong(at + 16, 0L);
        b.putInt(at + 24, 0);
        b.put(at, (byte) (OPCODE_CONTROL << 4));
    }

    /** Any header (initiator side in tests): flags from WSV/RSV, the STags and base offsets. */
    public static void put(
            ByteBuffer b,
            int at,
            int opcode,
            boolean wsv,
            int writeStag,
            long writeBase,
            boolean rsv,
            int readStag,
            long readBase) {
        b.put(at, (byte) ((opcode << 4) | (wsv ? WSV : 0) | (rsv ? RSV : 0)));
        b.put(at + 1, (byte) 0);
        b.put(at + 2, (byte) 0);
        b.put(at + 3, (byte) 0);
        b.putInt(at + WRITE_STAG_OFFSET, writeStag);
        b.putLong(at + WRITE_BASE_OFFSET, writeBase);
        b.putInt(at + READ_STAG_OFFSET, readStag);
        b.putLong(at + READ_BASE_OFFSET, readBase);
    }
}
