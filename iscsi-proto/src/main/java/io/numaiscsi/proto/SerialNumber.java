package io.numaiscsi.proto;

/**
 * RFC 1982 serial number arithmetic with SERIAL_BITS = 32, as RFC 7143 4.2.2.1 requires for
 * CmdSN, StatSN, DataSN and R2TSN. Two numbers exactly 2^31 apart are neither less nor greater
 * (undefined in RFC 1982).
 */
public final class SerialNumber {
    private SerialNumber() {}

    public static boolean lessThan(int a, int b) {
        return b - a > 0;
    }

    public static boolean greaterThan(int a, int b) {
        return a - b > 0;
    }

    public static boolean lessOrEqual(int a, int b) {
        return a == b || lessThan(a, b);
    }

    public static boolean greaterOrEqual(int a, int b) {
        return a == b || greaterThan(a, b);
    }

    /** exp &lt;= sn &lt;= max in serial arithmetic; empty when max == exp - 1. */
    public static boolean inWindow(int sn, int exp, int max) {
        return lessOrEqual(exp, sn) && lessOrEqual(sn, max);
    }
}
