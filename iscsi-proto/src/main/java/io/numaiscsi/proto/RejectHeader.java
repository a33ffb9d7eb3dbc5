package io.numaiscsi.proto;

/**
 * Reject BHS, RFC 7143 11.17. The data segment carries the complete header (BHS) of the
 * rejected PDU. Reusable flyweight.
 */
public final class RejectHeader extends TargetBhsFlyweight<RejectHeader> {
    public static final int REASON_OFFSET = 2;
    public static final int DATA_SN_OFFSET = 36;

    /** Zeroes the BHS, sets the opcode, byte 1 bit 7 and the ITT 0xffffffff the RFC requires. */
    public RejectHeader init() {
        return init(Opcode.REJECT, Bhs.FINAL_BIT).initiatorTaskTag(Bhs.RESERVED_TAG);
    }

    /** Raw reason code; see {@link RejectReason#of(int)}. */
    public int rejectReason() {
        return buf.getUnsignedByte(REASON_OFFSET);
    }

    public RejectHeader rejectReason(int reason) {
        return setByte(REASON_OFFSET, reason);
    }

    public RejectHeader rejectReason(RejectReason reason) {
        return rejectReason(reason.code());
    }

    /** DataSN/R2TSN: for a rejected SNACK, the expected DataSN or R2TSN; otherwise reserved. */
    public int dataSN() {
        return buf.getInt(DATA_SN_OFFSET);
    }

    public RejectHeader dataSN(int dataSN) {
        return setInt(DATA_SN_OFFSET, dataSN);
    }
}
