package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** SNACK Request BHS, RFC 7143 11.16. Reusable flyweight. */
public final class SnackHeader {
    public static final int TYPE_OFFSET = 1;
    public static final int TYPE_MASK = 0x0f;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int EXP_STAT_SN_OFFSET = 28;
    public static final int BEG_RUN_OFFSET = 40;
    public static final int RUN_LENGTH_OFFSET = 44;

    public static final int TYPE_DATA_R2T = 0;
    public static final int TYPE_STATUS = 1;
    public static final int TYPE_DATA_ACK = 2;
    public static final int TYPE_R_DATA = 3;

    private ByteBuf buf;

    public SnackHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    /** One of the TYPE_ constants. */
    public int snackType() {
        return buf.getByte(TYPE_OFFSET) & TYPE_MASK;
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    /** Target Transfer Tag, or SNACK Tag for R-Data SNACKs. */
    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }

    public int begRun() {
        return buf.getInt(BEG_RUN_OFFSET);
    }

    public int runLength() {
        return buf.getInt(RUN_LENGTH_OFFSET);
    }
}
