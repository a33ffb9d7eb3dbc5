package io.numaiscsi.proto;

/** Logout Response BHS, RFC 7143 11.15. Reusable flyweight. */
public final class LogoutResponseHeader extends TargetBhsFlyweight<LogoutResponseHeader> {
    public static final int RESPONSE_OFFSET = 2;
    public static final int TIME2WAIT_OFFSET = 40;
    public static final int TIME2RETAIN_OFFSET = 42;

    public static final int RESPONSE_CLOSED = 0;
    public static final int RESPONSE_CID_NOT_FOUND = 1;
    public static final int RESPONSE_RECOVERY_NOT_SUPPORTED = 2;
    public static final int RESPONSE_CLEANUP_FAILED = 3;

    /** Zeroes the BHS and sets the opcode and byte 1 bit 7 (always 1). */
    public LogoutResponseHeader init() {
        return init(Opcode.LOGOUT_RESPONSE, Bhs.FINAL_BIT);
    }

    /** One of the RESPONSE_ constants. */
    public int response() {
        return buf.getUnsignedByte(RESPONSE_OFFSET);
    }

    public LogoutResponseHeader response(int response) {
        return setByte(RESPONSE_OFFSET, response);
    }

    public int time2Wait() {
        return buf.getUnsignedShort(TIME2WAIT_OFFSET);
    }

    public LogoutResponseHeader time2Wait(int seconds) {
        return setShort(TIME2WAIT_OFFSET, seconds);
    }

    public int time2Retain() {
        return buf.getUnsignedShort(TIME2RETAIN_OFFSET);
    }

    public LogoutResponseHeader time2Retain(int seconds) {
        return setShort(TIME2RETAIN_OFFSET, seconds);
    }
}
