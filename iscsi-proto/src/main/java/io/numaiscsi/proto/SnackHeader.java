package io.numaiscsi.proto;

/**
 * SNACK Request BHS, RFC 7143 11.16. Reusable flyweight. The Target Transfer Tag field holds the SNACK Tag for
 * R-Data SNACKs; no CmdSN, only ExpStatSN.
 */
public final class SnackHeader extends BhsFlyweight<SnackHeader>
        implements LunField<SnackHeader>, TransferTagField<SnackHeader> {
    public static final int TYPE_MASK = 0x0f;
    public static final int BEG_RUN_OFFSET = 40;
    public static final int RUN_LENGTH_OFFSET = 44;

    public static final int TYPE_DATA_R2T = 0;
    public static final int TYPE_STATUS = 1;
    public static final int TYPE_DATA_ACK = 2;
    public static final int TYPE_R_DATA = 3;

    /** One of the TYPE_ constants. */
    public int snackType() {
        return buf.getByte(Bhs.FLAGS_OFFSET) & TYPE_MASK;
    }

    public int expStatSN() {
        return buf.getInt(Bhs.EXP_STAT_SN_OFFSET);
    }

    public int begRun() {
        return buf.getInt(BEG_RUN_OFFSET);
    }

    public int runLength() {
        return buf.getInt(RUN_LENGTH_OFFSET);
    }
}
