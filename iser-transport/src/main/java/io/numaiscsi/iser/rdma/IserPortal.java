package io.numaiscsi.iser.rdma;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.numaiscsi.iser.CmEvent;
import io.numaiscsi.iser.ConnectionSlots;
import io.numaiscsi.iser.IserCmHeader;
import io.numaiscsi.iser.IserConnection;
import io.numaiscsi.iser.IserSettings;
import io.numaiscsi.iser.IserTotals;
import io.numaiscsi.iser.IserTouches;
import io.numaiscsi.iser.IserTransport;
import io.numaiscsi.iser.RegisteredMemory;
import io.numaiscsi.iser.RegisteredSlabs;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.proto.transport.TransportEvents;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An iSER portal on RDMA verbs: an RDMA CM listener, one thread for CM events (connect requests,
 * disconnects) and one for completion events of every connection's completion queue. Neither thread runs
 * protocol code: a completion event only schedules the owning connection's poll on its own executor, which
 * drains the queue, re-arms the notification and polls once more (the arm/poll race).
 *
 * <p>Connection resources: a completion queue and a reliable-connected queue pair each, buffers from one of the
 * portal's slots ({@link ConnectionSlots}), registered once when the portal starts (the listening address must
 * belong to an RDMA device, e.g. the rxe link's netdev). Shared memory (every NUMA node's cache regions) is
 * registered at start too, so data-in is RDMA-Written straight from the cache blocks. A connection gives its slot
 * back when its queue pair is destroyed, as soon as the flushes of its disconnect come back, whichever side ended
 * it; the CM events of an accepted connection (disconnect, timewait exit, device removal) run on its own thread.
 */
public final class IserPortal implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IserPortal.class);
    private static final int EVENT_WAIT_MILLIS = 200;

    /** The daemon side: who owns a new connection, and the session layer over its transport. */
    public interface Acceptor {
        /** The thread that will own a connection from {@code remoteAddress} (all its calls run there). */
        EventExecutor executorFor(String remoteAddress);

        /** Builds the session side of a connection about to be accepted; runs on the connection's executor. */
        TransportEvents open(IscsiTransport transport);
    }

    private final LibIserShim shim;
    private final IserSettings settings;
    private final Acceptor acceptor;
    private final ByteBufAllocator alloc;
    private final Pointer cmChannel;
    private final Pointer listenId;
    private final NativeVerbs verbs;
    private final RegisteredSlabs slabs;
    private final RegisteredMemory shared;
    private final ConnectionSlots slots;
    private final Pointer compChannel;
    private final Map<Long, PolledConnection> byCq = new ConcurrentHashMap<>();
    private final Map<Long, PolledConnection> byId = new ConcurrentHashMap<>();
    private final Thread cmThread;
    private final Thread cqThread;
    private final String address;
    private volatile boolean running = true;

    private IserPortal(
            LibIserShim shim,
            IserSettings settings,
            ByteBufAllocator alloc,
            Acceptor acceptor,
            Pointer cmChannel,
            Pointer listenId,
            NativeVerbs verbs,
            RegisteredSlabs slabs,
            RegisteredMemory shared,
            Pointer compChannel,
            String address,
            ThreadFactory threads,
            IserTouches touches) {
        this.shim = shim;
        this.settings = settings;
        this.acceptor = acceptor;
        this.alloc = alloc;
        this.cmChannel = cmChannel;
        this.listenId = listenId;
        this.verbs = verbs;
        this.slabs = slabs;
        this.shared = shared;
        this.slots = new ConnectionSlots(slabs, shared, alloc, touches);
        this.compChannel = compChannel;
        this.address = address;
        this.cmThread = threads.newThread(this::cmLoop);
        this.cqThread = threads.newThread(this::cqLoop);
    }

    /**
     * Listens on {@code host:port} (a literal address of an RDMA device) for at most {@code maxConnections}
     * connections, with buffers on NUMA node {@code node} (the NIC's; the connections' threads run there), and
     * registers {@code sharedMemory} (direct buffers on any node) for in-place RDMA Writes; the connections record
     * where their data path touches memory in {@code touches}. Throws
     * IllegalStateException with the reason when the address has no RDMA device or the device refuses resources.
     */
    public static IserPortal listen(
            LibIserShim shim,
            String host,
            int port,
            IserSettings settings,
            NodeMemory memory,
            int node,
            int maxConnections,
            List<ByteBuffer> sharedMemory,
            ByteBufAllocator alloc,
            Acceptor acceptor,
            ThreadFactory threads,
            IserTouches touches) {
        Pointer channel = shim.ishim_channel_create();
        if (channel == null) {
            throw new IllegalStateException("rdma_create_event_channel failed (errno " + shim.ishim_errno()
                    + "); is rdma_ucm loaded (/dev/infiniband/rdma_cm)?");
        }
        Pointer listenId = shim.ishim_listen(channel, host, port, 64);
        if (listenId == null) {
            int errno = shim.ishim_errno();
            shim.ishim_channel_destroy(channel);
            throw new IllegalStateException(
                    "cannot listen for iSER on " + host + ":" + port + " (errno " + errno + ")");
        }
        Pointer context = shim.ishim_id_context(listenId);
        if (context == null) {
            shim.ishim_destroy(listenId, null);
            shim.ishim_channel_destroy(channel);
            throw new IllegalStateException("iSER portal " + host + ":" + port + " is not the address of an RDMA "
                    + "device (a wildcard or a plain NIC); add one, e.g. rdma link add rxe0 type rxe netdev eth0");
        }
        NativeVerbs verbs = NativeVerbs.open(shim, context);
        if (verbs == null) {
            shim.ishim_destroy(listenId, null);
            shim.ishim_channel_destroy(channel);
            throw new IllegalStateException(
                    "ibv_alloc_pd failed on the device of " + host + " (errno " + shim.ishim_errno() + ")");
        }
        RegisteredSlabs slabs = null;
        RegisteredMemory shared = null;
        try {
            slabs = RegisteredSlabs.allocate(verbs, memory, node, settings, maxConnections);
            shared = RegisteredMemory.register(verbs, sharedMemory);
            Pointer comp = shim.ishim_comp_channel(context);
            if (comp == null) {
                throw new IllegalStateException("ibv_create_comp_channel failed (errno " + shim.ishim_errno() + ")");
            }
            IserPortal portal = new IserPortal(
                    shim,
                    settings,
                    alloc,
                    acceptor,
                    channel,
                    listenId,
                    verbs,
                    slabs,
                    shared,
                    comp,
                    host + ":" + port,
                    threads,
                    touches);
            portal.cmThread.start();
            portal.cqThread.start();
            LOG.info(
                    "listening on {} (iSER, {} connections of {} KiB registered on node {}; {} MiB of cache memory in "
                            + "{} regions registered for in-place RDMA Writes)",
                    portal.address,
                    maxConnections,
                    settings.connectionBytes() / 1024,
                    node,
                    shared.bytes() >> 20,
                    shared.regions());
            return portal;
        } catch (RuntimeException e) {
            if (shared != null) {
                shared.close();
            }
            if (slabs != null) {
                slabs.close();
            }
            verbs.close();
            shim.ishim_destroy(listenId, null);
            shim.ishim_channel_destroy(channel);
            throw e;
        }
    }

    // ---- CM events -----------------------------------------------------------------------------

    private void cmLoop() {
        long[] ev = new long[8];
        while (running) {
            int n = shim.ishim_get_cm_event(cmChannel, EVENT_WAIT_MILLIS, ev);
            if (n < 0) {
                LOG.error(
                        "iSER portal {}: rdma_get_cm_event failed (errno {}); no more connections",
                        address,
                        shim.ishim_errno());
                return;
            }
            if (n == 0) {
                continue;
            }
            int type = (int) ev[0];
            if (type == CmEvent.CONNECT_REQUEST) {
                onConnectRequest(
                        Pointer.wrap(jnr.ffi.Runtime.getRuntime(shim), ev[1]),
                        (int) ev[3],
                        (int) ev[4],
                        (int) ev[6],
                        (int) ev[7]);
                continue;
            }
            PolledConnection p = byId.get(ev[1]);
            LOG.debug(
                    "iSER portal {}: {} for {} (status {})",
                    address,
                    CmEvent.name(type),
                    p == null ? "no connection" : p.endpoint.remoteAddress(),
                    ev[5]);
            if (p != null && CmEvent.concernsConnection(type)) {
                p.onOwner(c -> CmEvent.deliver(type, c));
            }
        }
    }

    private void onConnectRequest(
            Pointer id, int privateFlags, int privateLength, int peerResponderResources, int peerInitiatorDepth) {
        int slot = slots.reserve();
        if (slot < 0) {
            LOG.warn("rejecting iSER connection on {}: all {} connection slots are in use", address, slots.capacity());
            shim.ishim_reject(id);
            shim.ishim_destroy(id, null);
            return;
        }
        int receives = settings.receiveBuffers();
        int sq = settings.sendQueueDepth();
        Pointer cq = shim.ishim_create_cq(verbs.context(), sq + receives, compChannel);
        if (cq == null || shim.ishim_create_qp(id, verbs.pd(), cq, sq, receives) != 0) {
            LOG.warn(
                    "rejecting iSER connection on {}: cannot create its completion queue / queue pair (errno {})",
                    address,
                    shim.ishim_errno());
            shim.ishim_reject(id);
            shim.ishim_destroy(id, cq);
            slots.cancel(slot);
            return;
        }
        Pointer batch = shim.ishim_batch_new(Math.max(sq, receives));
        NativeEndpoint endpoint = new NativeEndpoint(shim, id, cq, batch, PolledConnection.POLL_BUDGET);
        ByteBuffer flags = ByteBuffer.allocate(1).put(0, (byte) Math.max(privateFlags, 0));
        IserCmHeader cm = IserCmHeader.parse(privateFlags < 0 ? null : flags, 0, privateLength);
        LOG.info("iSER connect request from {} on {} ({})", endpoint.remoteAddress(), address, cm);
        // Our RDMA Reads in flight may not exceed what the initiator's side serves at once.
        int reads = Math.max(1, Math.min(settings.maxOutstandingReads(), peerResponderResources));
        IserSettings s = settings;
        IserSettings mine = new IserSettings(
                s.queueDepth(),
                s.maxOutstandingUnexpectedPdus(),
                s.recvDataSegmentLength(),
                s.sendDataSegmentLength(),
                s.dataChunkSize(),
                s.dataChunks(),
                reads,
                s.sendQueueDepth(),
                s.signalInterval());
        EventExecutor executor = acceptor.executorFor(endpoint.remoteAddress());
        PolledConnection polled = new PolledConnection(endpoint, executor);
        byCq.put(cq.address(), polled);
        byId.put(id.address(), polled);
        executor.execute(() -> open(polled, slot, mine, peerInitiatorDepth));
    }

    /** On the connection's executor: build it and its session, post its receives, then accept. */
    private void open(PolledConnection polled, int slot, IserSettings mine, int peerInitiatorDepth) {
        NativeEndpoint endpoint = polled.endpoint;
        IserTransport transport = new IserTransport(polled.executor, polled, alloc);
        // removed only if still this connection's: a new id may already reuse the destroyed one's address
        IserConnection connection = slots.open(slot, endpoint, mine, transport.connectionEvents(), () -> {
            byCq.remove(endpoint.cq().address(), polled);
            byId.remove(endpoint.id().address(), polled);
        });
        polled.connection = connection;
        transport.open(connection, acceptor::open);
        if (!connection.start()) {
            shim.ishim_reject(endpoint.id());
            connection.forceDestroy();
            return;
        }
        endpoint.armNotify();
        byte[] privateData = new byte[IserCmHeader.LENGTH];
        IserCmHeader.putAccept(ByteBuffer.wrap(privateData), 0);
        // initiator_depth: the RDMA Reads we issue; responder_resources: what we serve (the initiator reads nothing)
        int responder = Math.min(peerInitiatorDepth, mine.maxOutstandingReads());
        if (shim.ishim_accept(endpoint.id(), responder, mine.maxOutstandingReads(), privateData, privateData.length)
                != 0) {
            LOG.warn("rdma_accept for {} failed (errno {})", endpoint.remoteAddress(), shim.ishim_errno());
            connection.forceDestroy();
        }
    }

    // ---- completion events ---------------------------------------------------------------------

    private void cqLoop() {
        Pointer cq = jnr.ffi.Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(shim), 8);
        while (running) {
            int n = shim.ishim_get_cq_event(compChannel, EVENT_WAIT_MILLIS, cq);
            if (n < 0) {
                LOG.error("iSER portal {}: ibv_get_cq_event failed (errno {})", address, shim.ishim_errno());
                return;
            }
            if (n == 0) {
                continue;
            }
            PolledConnection p = byCq.get(cq.getLong(0));
            if (p != null) {
                p.schedule();
            }
        }
    }

    public String address() {
        return address;
    }

    /**
     * This portal's iSER traffic: {@code totals().snapshot()} sums the connections gone and the live ones,
     * {@code totals().live()} lists the live connections ({@link IserConnection#counters()} each). Any thread.
     */
    public IserTotals totals() {
        return slots.totals();
    }

    @Override
    public void close() {
        running = false;
        try {
            cmThread.join(2 * EVENT_WAIT_MILLIS + 100);
            cqThread.join(2 * EVENT_WAIT_MILLIS + 100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Each connection's queue pair goes on its own thread; memory is deregistered only once all are gone. A
        // snapshot: connections closing meanwhile leave the map, and the latch must count what is waited for.
        List<PolledConnection> open = List.copyOf(byId.values());
        CountDownLatch gone = new CountDownLatch(open.size());
        for (PolledConnection p : open) {
            try {
                p.runOnOwner(() -> {
                    IserConnection c = p.connection; // read there: the connection's open ran before on that thread
                    if (c != null) {
                        c.forceDestroy();
                    }
                    gone.countDown();
                });
            } catch (RuntimeException e) {
                gone.countDown(); // the executor is already shut down
            }
        }
        boolean allGone;
        try {
            allGone = gone.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            allGone = false;
        }
        if (allGone) {
            shared.close();
            slabs.close();
            shim.ishim_comp_channel_destroy(compChannel);
            verbs.close();
        } else {
            LOG.warn("iSER portal {}: connections still open after 5 s; their memory stays registered", address);
        }
        shim.ishim_destroy(listenId, null);
        shim.ishim_channel_destroy(cmChannel);
    }
}
