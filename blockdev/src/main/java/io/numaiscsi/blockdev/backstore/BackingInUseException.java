package io.numaiscsi.blockdev.backstore;

import java.io.IOException;

/** A backing store another daemon (or another LUN) already serves. */
public final class BackingInUseException extends IOException {
    private static final long serialVersionUID = 1L;

    public BackingInUseException(String message) {
        super(message);
    }
}
