package io.numaiscsi.proto.login;

/** Login Response Status-Class and Status-Detail values (RFC 7143 11.13.5). */
public final class LoginStatus {
    public static final int SUCCESS = 0x00;
    public static final int REDIRECTION = 0x01;
    public static final int INITIATOR_ERROR = 0x02;
    public static final int TARGET_ERROR = 0x03;

    // Status-Detail for class INITIATOR_ERROR.
    public static final int MISCELLANEOUS = 0x00;
    public static final int AUTHENTICATION_FAILURE = 0x01;
    public static final int AUTHORIZATION_FAILURE = 0x02;
    public static final int NOT_FOUND = 0x03;
    public static final int TARGET_REMOVED = 0x04;
    public static final int UNSUPPORTED_VERSION = 0x05;
    public static final int TOO_MANY_CONNECTIONS = 0x06;
    public static final int MISSING_PARAMETER = 0x07;
    public static final int CANT_INCLUDE_IN_SESSION = 0x08;
    public static final int SESSION_TYPE_NOT_SUPPORTED = 0x09;
    public static final int SESSION_DOES_NOT_EXIST = 0x0A;
    public static final int INVALID_DURING_LOGIN = 0x0B;

    // Status-Detail for class TARGET_ERROR.
    public static final int TARGET_ERROR_MISCELLANEOUS = 0x00;
    public static final int SERVICE_UNAVAILABLE = 0x01;
    public static final int OUT_OF_RESOURCES = 0x02;

    private LoginStatus() {
    }
}
