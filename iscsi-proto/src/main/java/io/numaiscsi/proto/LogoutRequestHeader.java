package io.numaiscsi.proto;

/** Logout Request BHS, RFC 7143 11.14. Reusable flyweight. */
public final class LogoutRequestHeader extends InitiatorBhsFlyweight<LogoutRequestHeader> {
    public static final int REASON_CODE_MASK = 0x7f;
    public static final int CID_OFFSET = 20;

    public static final int REASON_CLOSE_SESSION = 0;
    public static final int REASON_CLOSE_CONNECTION = 1;
    public static final int REASON_REMOVE_CONNECTION_FOR_RECOVERY = 2;

    /** One of the REASON_ constants. */
    public int reasonCode() {
        return buf.getByte(Bhs.FLAGS_OFFSET) & REASON_CODE_MASK;
    }

    public int cid() {
        return buf.getUnsignedShort(CID_OFFSET);
    }
}
