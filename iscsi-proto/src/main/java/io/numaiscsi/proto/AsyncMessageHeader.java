package io.numaiscsi.proto;

/** Asynchronous Message BHS, RFC 7143 11.9. Reusable flyweight. */
public final class AsyncMessageHeader extends TargetBhsFlyweight<AsyncMessageHeader>
        implements LunField<AsyncMessageHeader> {
    public static final int ASYNC_EVENT_OFFSET = 36;
    public static final int ASYNC_VCODE_OFFSET = 37;
    public static final int PARAMETER1_OFFSET = 38;
    public static final int PARAMETER2_OFFSET = 40;
    public static final int PARAMETER3_OFFSET = 42;

    public static final int EVENT_SCSI_ASYNC_EVENT = 0;
    public static final int EVENT_LOGOUT_REQUEST = 1;
    public static final int EVENT_CONNECTION_DROP = 2;
    public static final int EVENT_SESSION_DROP = 3;
    public static final int EVENT_NEGOTIATION_REQUEST = 4;
    public static final int EVENT_TASK_TERMINATION = 5;
    public static final int EVENT_VENDOR_SPECIFIC = 255;

    /** Zeroes the BHS, sets the opcode, byte 1 bit 7 and the ITT 0xffffffff the RFC requires. */
    public AsyncMessageHeader init() {
        return init(Opcode.ASYNC_MESSAGE, Bhs.FINAL_BIT).initiatorTaskTag(Bhs.RESERVED_TAG);
    }

    /** One of the EVENT_ constants. */
    public int asyncEvent() {
        return buf.getUnsignedByte(ASYNC_EVENT_OFFSET);
    }

    public AsyncMessageHeader asyncEvent(int event) {
        return setByte(ASYNC_EVENT_OFFSET, event);
    }

    public int asyncVCode() {
        return buf.getUnsignedByte(ASYNC_VCODE_OFFSET);
    }

    public AsyncMessageHeader asyncVCode(int vcode) {
        return setByte(ASYNC_VCODE_OFFSET, vcode);
    }

    public int parameter1() {
        return buf.getUnsignedShort(PARAMETER1_OFFSET);
    }

    public AsyncMessageHeader parameter1(int value) {
        return setShort(PARAMETER1_OFFSET, value);
    }

    public int parameter2() {
        return buf.getUnsignedShort(PARAMETER2_OFFSET);
    }

    public AsyncMessageHeader parameter2(int value) {
        return setShort(PARAMETER2_OFFSET, value);
    }

    public int parameter3() {
        return buf.getUnsignedShort(PARAMETER3_OFFSET);
    }

    public AsyncMessageHeader parameter3(int value) {
        return setShort(PARAMETER3_OFFSET, value);
    }
}
