package io.numaiscsi.session;

import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * A connection's reusable commands, made as its queue first needs them and kept for reuse, up to {@code capacity}.
 * A connection that logs in and issues a few commands holds a few; one that keeps its window full holds its depth
 * after the first burst and allocates no more. Preallocating the full depth cost every connection about 130 KB of
 * heap at a queue depth of 128, which a storm of short logins turned into gigabytes. One thread (the connection's)
 * uses it.
 */
final class CommandPool {
    private final ArrayDeque<IscsiCommand> free = new ArrayDeque<>();
    private final Supplier<IscsiCommand> factory;
    private final int capacity;
    private int made;

    CommandPool(Supplier<IscsiCommand> factory, int capacity) {
        this.factory = factory;
        this.capacity = capacity;
    }

    /** A free command, a new one while fewer than {@code capacity} exist, or null: the queue is full. */
    IscsiCommand take() {
        IscsiCommand cmd = free.poll();
        if (cmd == null && made < capacity) {
            made++;
            cmd = factory.get();
        }
        return cmd;
    }

    void give(IscsiCommand cmd) {
        free.add(cmd);
    }

    /** Commands made so far (tests). */
    int made() {
        return made;
    }
}
