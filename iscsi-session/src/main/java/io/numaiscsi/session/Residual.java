package io.numaiscsi.session;

/** Residual kinds of a SCSI Response / final Data-In (RFC 7143 11.4.5). */
final class Residual {
    static final int NONE = 0;
    static final int OVERFLOW = 1;
    static final int UNDERFLOW = 2;

    private Residual() {}

    /** Residual of a transfer: what the command wanted to move vs. what the initiator expected. */
    static int kind(int commandBytes, int expectedBytes) {
        if (commandBytes > expectedBytes) {
            return OVERFLOW;
        }
        return commandBytes < expectedBytes ? UNDERFLOW : NONE;
    }

    static int amount(int commandBytes, int expectedBytes) {
        return Math.abs(commandBytes - expectedBytes);
    }
}
