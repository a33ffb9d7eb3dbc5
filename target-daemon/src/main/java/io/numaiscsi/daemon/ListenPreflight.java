package io.numaiscsi.daemon;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Every TCP address the daemon will listen on, tried before any of them listens: a busy one stops the start with one
 * line naming it, instead of a half-started daemon (portals serving, then an exit because the metrics port was taken).
 * A port taken between this check and the real bind still fails there, with the same naming.
 */
final class ListenPreflight {
    private ListenPreflight() {}

    /** @throws IOException naming {@code what} and its address when it cannot be bound */
    static void check(String what, String host, int port) throws IOException {
        if (port == 0) {
            return; // any free port
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // as the real listeners do: a port in TIME_WAIT is not busy
            s.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new IOException(
                    what + " " + host + ":" + port + " cannot be listened on: " + e.getMessage()
                            + (String.valueOf(e.getMessage()).contains("in use")
                                    ? " (another process listens there: another target, tgtd, LIO, or this daemon already running)"
                                    : ""),
                    e);
        }
    }
}
