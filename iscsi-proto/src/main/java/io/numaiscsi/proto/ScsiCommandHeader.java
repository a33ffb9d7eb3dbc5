package io.numaiscsi.proto;

/** SCSI Command BHS, RFC 7143 11.3. Reusable flyweight; absolute access, indexes untouched. */
public final class ScsiCommandHeader extends InitiatorBhsFlyweight<ScsiCommandHeader>
        implements LunField<ScsiCommandHeader> {
    public static final int EXPECTED_DATA_TRANSFER_LENGTH_OFFSET = 20;
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

    // F (finalBit): no unsolicited Data-Out follows this PDU. DataSegmentLength: immediate data.

    public boolean readBit() {
        return flag(READ_BIT);
    }

    public boolean writeBit() {
        return flag(WRITE_BIT);
    }

    /** ATTR field, one of the ATTR_ constants. */
    public int taskAttribute() {
        return buf.getByte(Bhs.FLAGS_OFFSET) & ATTR_MASK;
    }

    /** Unsigned 32-bit value; read as long to keep sizes over 2 GiB positive. */
    public long expectedDataTransferLength() {
        return buf.getUnsignedInt(EXPECTED_DATA_TRANSFER_LENGTH_OFFSET);
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
