package io.numaiscsi.iser;

import java.nio.ByteBuffer;

/**
 * Base of a connection's two posting sides ({@link IserSender}, {@link RdmaDataMover}): the {@link ConnectionParts}
 * as fields, and a view of the slab of its own. The connection's thread only.
 */
abstract class PostingSide {
    final RdmaEndpoint endpoint;
    final MemoryRegion region;
    final ChunkPool data;
    final SendQueue sq;
    final IserLifecycle lifecycle;
    final TaskTable tasks;
    final HeldBuffers holds;
    final IserCounters counters;
    final IserTouches touches;
    private final ByteBuffer view;

    PostingSide(ConnectionParts parts) {
        this.endpoint = parts.endpoint();
        this.region = parts.region();
        this.data = parts.data();
        this.sq = parts.sq();
        this.lifecycle = parts.lifecycle();
        this.tasks = parts.tasks();
        this.holds = parts.holds();
        this.counters = parts.counters();
        this.touches = parts.touches();
        this.view = region.buffer().duplicate();
    }

    /** Bytes [from, from + length) of the slab, through the one view (valid until the next call). */
    final ByteBuffer slice(int from, int length) {
        view.clear();
        view.position(from).limit(from + length);
        return view;
    }
}
