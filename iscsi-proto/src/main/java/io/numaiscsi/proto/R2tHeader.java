package io.numaiscsi.proto;

/** Ready To Transfer BHS, RFC 7143 11.8. Reusable flyweight. StatSN is the next one; an R2T does not advance it. */
public final class R2tHeader extends TargetBhsFlyweight<R2tHeader>
        implements LunField<R2tHeader>, TransferTagField<R2tHeader> {
    public static final int R2T_SN_OFFSET = 36;
    public static final int BUFFER_OFFSET_OFFSET = 40;
    public static final int DESIRED_DATA_TRANSFER_LENGTH_OFFSET = 44;

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public R2tHeader init() {
        return init(Opcode.R2T, Bhs.FINAL_BIT);
    }

    public int r2tSN() {
        return buf.getInt(R2T_SN_OFFSET);
    }

    public R2tHeader r2tSN(int r2tSN) {
        return setInt(R2T_SN_OFFSET, r2tSN);
    }

    public int bufferOffset() {
        return buf.getInt(BUFFER_OFFSET_OFFSET);
    }

    public R2tHeader bufferOffset(int offset) {
        return setInt(BUFFER_OFFSET_OFFSET, offset);
    }

    public int desiredDataTransferLength() {
        return buf.getInt(DESIRED_DATA_TRANSFER_LENGTH_OFFSET);
    }

    public R2tHeader desiredDataTransferLength(int length) {
        return setInt(DESIRED_DATA_TRANSFER_LENGTH_OFFSET, length);
    }
}
