package io.numaiscsi.proto;

/**
 * Base of the two PDUs that can carry a command's SAM status, SCSI Response and Data-In with the S bit
 * (RFC 7143 11.4, 11.7): status at byte 3, the O and U bits of byte 1 and the Residual Count at byte 44.
 *
 * @param <T> the concrete header
 */
public abstract class ScsiStatusBhsFlyweight<T extends ScsiStatusBhsFlyweight<T>> extends TargetBhsFlyweight<T> {
    public static final int STATUS_OFFSET = 3;
    public static final int RESIDUAL_COUNT_OFFSET = 44;
    public static final int OVERFLOW_BIT = 0x04;
    public static final int UNDERFLOW_BIT = 0x02;

    ScsiStatusBhsFlyweight() {}

    public final boolean overflow() {
        return flag(OVERFLOW_BIT);
    }

    public final T overflow(boolean on) {
        return flag(OVERFLOW_BIT, on);
    }

    public final boolean underflow() {
        return flag(UNDERFLOW_BIT);
    }

    public final T underflow(boolean on) {
        return flag(UNDERFLOW_BIT, on);
    }

    /** SAM status; on a SCSI Response valid when the response is 0, on a Data-In only with the S bit. */
    public final int status() {
        return buf.getUnsignedByte(STATUS_OFFSET);
    }

    public final T status(int status) {
        return setByte(STATUS_OFFSET, status);
    }

    public final int residualCount() {
        return buf.getInt(RESIDUAL_COUNT_OFFSET);
    }

    public final T residualCount(int count) {
        return setInt(RESIDUAL_COUNT_OFFSET, count);
    }
}
