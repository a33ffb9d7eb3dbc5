package io.numaiscsi.proto.login;

/** A text data segment that breaks the syntax of RFC 7143 6.1; answered with a login reject or a Reject PDU. */
public final class TextFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public TextFormatException(String message) {
        super(message);
    }
}
