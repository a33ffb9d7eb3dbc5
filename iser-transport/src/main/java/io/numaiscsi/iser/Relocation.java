package io.numaiscsi.iser;

import io.netty.util.concurrent.EventExecutor;

/** Moves one connection, with its completion handling, to another thread. */
public interface Relocation {
    /**
     * Called on the connection's thread while it handles a PDU: when that handling is over the connection stops being
     * polled here, and {@code onArrival} then every later poll run on {@code destination}.
     */
    void moveTo(EventExecutor destination, Runnable onArrival);
}
