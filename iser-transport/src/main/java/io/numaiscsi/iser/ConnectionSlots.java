package io.numaiscsi.iser;

import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.proto.transport.TransportEvents;

/**
 * The connections one portal can hold, one slab of its registered buffer each ({@link RegisteredSlabs}). A slot is
 * reserved at the connect request and comes back the moment the connection's queue pair is destroyed, however the
 * connection ended (logout, closed by the target, the initiator gone, an error). Thread-safe.
 */
public final class ConnectionSlots {
    private final RegisteredSlabs slabs;
    private final RegisteredMemory shared;
    private final ByteBufAllocator alloc;
    private final IserTotals totals = new IserTotals();
    private final IserTouches touches;

    /** @param shared memory registered besides the slabs (the cache regions), for in-place RDMA Writes */
    public ConnectionSlots(RegisteredSlabs slabs, RegisteredMemory shared, ByteBufAllocator alloc) {
        this(slabs, shared, alloc, IserTouches.unmeasured());
    }

    /** As above, the connections recording where their data path touches memory in {@code touches}. */
    public ConnectionSlots(
            RegisteredSlabs slabs, RegisteredMemory shared, ByteBufAllocator alloc, IserTouches touches) {
        this.slabs = slabs;
        this.shared = shared;
        this.alloc = alloc;
        this.touches = touches;
    }

    /** A free slot for a connection about to be accepted, or -1 when every slot is taken. */
    public int reserve() {
        return slabs.take();
    }

    /** Gives back a reserved slot no connection was built on. */
    public void cancel(int slot) {
        slabs.give(slot);
    }

    /**
     * The connection on reserved {@code slot}, reporting to {@code events}. When its queue pair is destroyed,
     * {@code onDestroyed} runs and then the slot is free again.
     */
    public IserConnection open(
            int slot, RdmaEndpoint endpoint, IserSettings settings, TransportEvents events, Runnable onDestroyed) {
        IserConnection[] self = new IserConnection[1];
        IserConnection connection = new IserConnection(
                endpoint,
                slabs.region(),
                slot,
                settings,
                shared,
                alloc,
                events,
                () -> {
                    totals.destroyed(self[0]);
                    onDestroyed.run();
                    slabs.give(slot);
                },
                touches);
        self[0] = connection;
        totals.opened(connection);
        return connection;
    }

    /** The counters of the connections opened here: live ones plus those gone. */
    public IserTotals totals() {
        return totals;
    }

    public int free() {
        return slabs.available();
    }

    public int capacity() {
        return slabs.capacity();
    }
}
