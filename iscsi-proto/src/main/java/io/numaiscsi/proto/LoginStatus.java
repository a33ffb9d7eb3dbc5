package io.numaiscsi.proto;

/**
 * The Login Response status (RFC 7143 11.13.5): each Status-Class / Status-Detail pair the RFC defines.
 * {@link #INITIATOR_ERROR} and {@link #TARGET_ERROR} are the "miscellaneous" detail (0) of their class.
 */
public enum LoginStatus {
    SUCCESS(0x00, 0x00),
    TARGET_MOVED_TEMPORARILY(0x01, 0x01),
    TARGET_MOVED_PERMANENTLY(0x01, 0x02),
    INITIATOR_ERROR(0x02, 0x00),
    AUTHENTICATION_FAILURE(0x02, 0x01),
    AUTHORIZATION_FAILURE(0x02, 0x02),
    NOT_FOUND(0x02, 0x03),
    TARGET_REMOVED(0x02, 0x04),
    UNSUPPORTED_VERSION(0x02, 0x05),
    TOO_MANY_CONNECTIONS(0x02, 0x06),
    MISSING_PARAMETER(0x02, 0x07),
    CANT_INCLUDE_IN_SESSION(0x02, 0x08),
    SESSION_TYPE_NOT_SUPPORTED(0x02, 0x09),
    SESSION_DOES_NOT_EXIST(0x02, 0x0a),
    INVALID_DURING_LOGIN(0x02, 0x0b),
    TARGET_ERROR(0x03, 0x00),
    SERVICE_UNAVAILABLE(0x03, 0x01),
    OUT_OF_RESOURCES(0x03, 0x02);

    private static final LoginStatus[] BY_CODE = Codes.index(values(), 4 << 8, LoginStatus::code);

    private final int statusClass;
    private final int statusDetail;

    LoginStatus(int statusClass, int statusDetail) {
        this.statusClass = statusClass;
        this.statusDetail = statusDetail;
    }

    public int statusClass() {
        return statusClass;
    }

    public int statusDetail() {
        return statusDetail;
    }

    /** Class in the high byte, detail in the low byte. */
    public int code() {
        return statusClass << 8 | statusDetail;
    }

    /** The status with this class and detail, or null for a pair RFC 7143 does not define. */
    public static LoginStatus of(int statusClass, int statusDetail) {
        if ((statusClass | statusDetail) >>> 8 != 0) {
            return null;
        }
        return Codes.lookup(BY_CODE, statusClass << 8 | statusDetail);
    }
}
