package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** SCSI Command BHS, RFC 7143 11.3. Reusable flyweight; absolute access, indexes untouched. */
public final class ScsiCommandHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int EXPECTED_DATA_TRANSFER_LENGTH_OFFSET = 20;
    public static final int CMD_SN_OFFSET = 24;
    public static final int EXP_STAT_SN_OFFSET = 28;
    public static final int CDB_OFFSET = 32;
    public static final int CDB_LENGTH = 16;

    public static final int READ_BIT = 0x40;
    public static final int WRITE_BIT = 0x20;
    public static final int ATTR_MASK = 0x07;

    public static final int ATTR_UNTAGGED = 0;
    public static final int ATTR_SIMPLE = 1;
    public static final int ATTR_ORDERED = 2;
    public static final int ATTR_HEAD_OF_QUEUE = 3;
    public static final int ATTR_ACA = 4;

    private ByteBuf buf;

    public ScsiCommandHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean immediate() {
        return Bhs.immediate(buf);
    }

    /** F: no unsolicited Data-Out follows this PDU. */
    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public boolean readBit() {
        return Bhs.flag(buf, FLAGS_OFFSET, READ_BIT);
    }

    public boolean writeBit() {
        return Bhs.flag(buf, FLAGS_OFFSET, WRITE_BIT);
    }

    /** ATTR field, one of the ATTR_ constants. */
    public int taskAttribute() {
        return buf.getByte(FLAGS_OFFSET) & ATTR_MASK;
    }

    public int totalAhsLength() {
        return Bhs.totalAhsLength(buf);
    }

    /** Immediate data length. */
    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    /** Unsigned 32-bit value; read as long to keep sizes over 2 GiB positive. */
    public long expectedDataTransferLength() {
        return buf.getUnsignedInt(EXPECTED_DATA_TRANSFER_LENGTH_OFFSET);
    }

    public int cmdSN() {
        return buf.getInt(CMD_SN_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }

    /** CDB byte 0 (the SCSI operation code). */
    public int cdbOpcode() {
        return buf.getUnsignedByte(CDB_OFFSET);
    }

    /** CDB byte {@code i}, 0..15. */
    public int cdbByte(int i) {
        return buf.getUnsignedByte(CDB_OFFSET + i);
    }
}
