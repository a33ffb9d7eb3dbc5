package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** SCSI Data-Out BHS, RFC 7143 11.7. Reusable flyweight. */
public final class DataOutHeader {
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int EXP_STAT_SN_OFFSET = 28;
    public static final int DATA_SN_OFFSET = 36;
    public static final int BUFFER_OFFSET_OFFSET = 40;

    private ByteBuf buf;

    public DataOutHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    /** 0xffffffff for unsolicited data. */
    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }

    public int dataSN() {
        return buf.getInt(DATA_SN_OFFSET);
    }

    public int bufferOffset() {
        return buf.getInt(BUFFER_OFFSET_OFFSET);
    }
}
