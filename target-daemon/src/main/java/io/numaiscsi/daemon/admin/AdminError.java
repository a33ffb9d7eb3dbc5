package io.numaiscsi.daemon.admin;

/** A request the admin API refuses: a JSON-RPC 2.0 error code and a message naming what was wrong. */
final class AdminError extends Exception {
    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    static final int METHOD_NOT_FOUND = -32601;
    static final int INVALID_PARAMS = -32602;
    /** The request was valid but the daemon could not carry it out (e.g. a backing file that cannot be opened). */
    static final int FAILED = -32000;

    final int code;

    AdminError(int code, String message) {
        super(message);
        this.code = code;
    }
}
