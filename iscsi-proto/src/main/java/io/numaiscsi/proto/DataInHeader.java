package io.numaiscsi.proto;

/** SCSI Data-In BHS, RFC 7143 11.7. Reusable flyweight; absolute access, indexes untouched. */
public final class DataInHeader extends ScsiStatusBhsFlyweight<DataInHeader>
        implements LunField<DataInHeader>, TransferTagField<DataInHeader> {
    public static final int DATA_SN_OFFSET = 36;
    public static final int BUFFER_OFFSET_OFFSET = 40;

    public static final int ACKNOWLEDGE_BIT = 0x40;
    public static final int STATUS_BIT = 0x01;

    /** Zeroes the BHS, sets the opcode and the reserved Target Transfer Tag 0xffffffff. */
    public DataInHeader init() {
        return init(Opcode.SCSI_DATA_IN, 0).targetTransferTag(Bhs.RESERVED_TAG);
    }

    /** A bit: the initiator must answer with a DataACK SNACK (ErrorRecoveryLevel &gt; 0 only). */
    public boolean acknowledge() {
        return flag(ACKNOWLEDGE_BIT);
    }

    public DataInHeader acknowledge(boolean on) {
        return flag(ACKNOWLEDGE_BIT, on);
    }

    /** S bit: this PDU carries the command status (requires F); StatSN is valid only with it. */
    public boolean statusPresent() {
        return flag(STATUS_BIT);
    }

    public DataInHeader statusPresent(boolean on) {
        return flag(STATUS_BIT, on);
    }

    public int dataSN() {
        return buf.getInt(DATA_SN_OFFSET);
    }

    public DataInHeader dataSN(int dataSN) {
        return setInt(DATA_SN_OFFSET, dataSN);
    }

    public int bufferOffset() {
        return buf.getInt(BUFFER_OFFSET_OFFSET);
    }

    public DataInHeader bufferOffset(int offset) {
        return setInt(BUFFER_OFFSET_OFFSET, offset);
    }
}
