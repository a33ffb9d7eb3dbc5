package io.numaiscsi.rbd;

import java.io.IOException;

/** The cluster refuses this client: another gateway blocklisted it. A new client (a new connection) is not refused. */
public final class FencedException extends IOException {
    public FencedException(String message) {
        super(message);
    }
}
