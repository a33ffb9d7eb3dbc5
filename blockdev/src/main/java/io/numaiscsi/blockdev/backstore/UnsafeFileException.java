package io.numaiscsi.blockdev.backstore;

import java.io.IOException;

/**
 * A file or directory the daemon refuses to use because another local user could control it (a symbolic link, a
 * file or directory of another user, a directory others may write). The message names the path, what is wrong and
 * how to fix it; the daemon prints it alone and does not start.
 */
public final class UnsafeFileException extends IOException {
    private static final long serialVersionUID = 1L;

    public UnsafeFileException(String message) {
        super(message);
    }
}
