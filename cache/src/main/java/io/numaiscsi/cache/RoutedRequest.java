package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;

/**
 * What the front end routes: a pooled request it may forward once to the workers of the node holding most of its
 * bytes. Runs (starts) on whichever thread the front end chose.
 */
abstract class RoutedRequest implements Runnable, RequestPool.Pooled {
    long offset;
    long length;
    /** The caller's buffer: read into, or written from. */
    ByteBuf buf;

    IoCompletion done;
    /** Forwarded to another node's workers (once). */
    boolean routed;

    int servingNode;

    abstract void start();

    @Override
    public void run() {
        start();
    }

    /** Ready for the next use: nothing of the last one left. */
    @Override
    public void reset() {
        buf = null;
        done = null;
        routed = false;
    }

    @Override
    public final void clear() {
        buf = null;
        done = null;
    }
}
