package io.numaiscsi.proto;

/**
 * SCSI Data-Out BHS, RFC 7143 11.7. Reusable flyweight. The Target Transfer Tag is 0xffffffff for unsolicited
 * data; no CmdSN, only ExpStatSN.
 */
public final class DataOutHeader extends BhsFlyweight<DataOutHeader>
        implements LunField<DataOutHeader>, TransferTagField<DataOutHeader> {
    public static final int DATA_SN_OFFSET = 36;
    public static final int BUFFER_OFFSET_OFFSET = 40;

    public int expStatSN() {
        return buf.getInt(Bhs.EXP_STAT_SN_OFFSET);
    }

    public int dataSN() {
        return buf.getInt(DATA_SN_OFFSET);
    }

    public int bufferOffset() {
        return buf.getInt(BUFFER_OFFSET_OFFSET);
    }
}
