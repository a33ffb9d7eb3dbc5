package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** SCSI Data-In BHS, RFC 7143 11.7. Reusable flyweight; absolute access, indexes untouched. */
public final class DataInHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int STATUS_OFFSET = 3;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int DATA_SN_OFFSET = 36;
    public static final int BUFFER_OFFSET_OFFSET = 40;
    public static final int RESIDUAL_COUNT_OFFSET = 44;

    public static final int ACKNOWLEDGE_BIT = 0x40;
    public static final int OVERFLOW_BIT = 0x04;
    public static final int UNDERFLOW_BIT = 0x02;
    public static final int STATUS_BIT = 0x01;

    private ByteBuf buf;

    public DataInHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS, sets the opcode and the reserved Target Transfer Tag 0xffffffff. */
    public DataInHeader init() {
        Bhs.init(buf, Opcode.SCSI_DATA_IN.code(), 0);
        buf.setInt(TARGET_TRANSFER_TAG_OFFSET, Bhs.RESERVED_TAG);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public DataInHeader finalBit(boolean on) {
        Bhs.flag(buf, Bhs.FLAGS_OFFSET, Bhs.FINAL_BIT, on);
        return this;
    }

    /** A bit: the initiator must answer with a DataACK SNACK (ErrorRecoveryLevel &gt; 0 only). */
    public boolean acknowledge() {
        return Bhs.flag(buf, FLAGS_OFFSET, ACKNOWLEDGE_BIT);
    }

    public DataInHeader acknowledge(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, ACKNOWLEDGE_BIT, on);
        return this;
    }

    public boolean overflow() {
        return Bhs.flag(buf, FLAGS_OFFSET, OVERFLOW_BIT);
    }

    public DataInHeader overflow(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, OVERFLOW_BIT, on);
        return this;
    }

    public boolean underflow() {
        return Bhs.flag(buf, FLAGS_OFFSET, UNDERFLOW_BIT);
    }

    public DataInHeader underflow(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, UNDERFLOW_BIT, on);
        return this;
    }

    /** S bit: this PDU carries the command status (requires F). */
    public boolean statusPresent() {
        return Bhs.flag(buf, FLAGS_OFFSET, STATUS_BIT);
    }

    public DataInHeader statusPresent(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, STATUS_BIT, on);
        return this;
    }

    public int status() {
        return buf.getUnsignedByte(STATUS_OFFSET);
    }

    public DataInHeader status(int status) {
        buf.setByte(STATUS_OFFSET, status);
        return this;
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public DataInHeader lun(long lun) {
        buf.setLong(LUN_OFFSET, lun);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public DataInHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    public DataInHeader targetTransferTag(int ttt) {
        buf.setInt(TARGET_TRANSFER_TAG_OFFSET, ttt);
        return this;
    }

    /** Valid only with the S bit; otherwise reserved (0). */
    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public DataInHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public DataInHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public DataInHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    public int dataSN() {
        return buf.getInt(DATA_SN_OFFSET);
    }

    public DataInHeader dataSN(int dataSN) {
        buf.setInt(DATA_SN_OFFSET, dataSN);
        return this;
    }

    public int bufferOffset() {
        return buf.getInt(BUFFER_OFFSET_OFFSET);
    }

    public DataInHeader bufferOffset(int offset) {
        buf.setInt(BUFFER_OFFSET_OFFSET, offset);
        return this;
    }

    public int residualCount() {
        return buf.getInt(RESIDUAL_COUNT_OFFSET);
    }

    public DataInHeader residualCount(int count) {
        buf.setInt(RESIDUAL_COUNT_OFFSET, count);
        return this;
    }
}
