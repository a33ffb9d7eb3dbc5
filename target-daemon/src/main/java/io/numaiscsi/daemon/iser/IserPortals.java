package io.numaiscsi.daemon.iser;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.numaiscsi.iser.IserLimits;
import io.numaiscsi.iser.IserSettings;
import io.numaiscsi.iser.IserStats;
import io.numaiscsi.iser.IserTouches;
import io.numaiscsi.iser.rdma.IserPortal;
import io.numaiscsi.iser.rdma.LibIserShim;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.proto.transport.TransportEvents;
import io.numaiscsi.session.IscsiConnection;
import io.numaiscsi.session.SessionServices;
import io.numaiscsi.session.SessionSettings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The daemon's iSER portals: each listens through the verbs shim, logs connections in on the login event
 * loops with iSER negotiation limits (RDMAExtensions=Yes, no digests, InitialR2T=Yes), then hands each
 * connection to its target's event thread like a TCP connection. Every cached LUN's memory (all NUMA nodes) is
 * registered with each portal's device at start, so reads leave by RDMA Write straight from the cache blocks.
 */
public final class IserPortals implements AutoCloseable {
    private final LibIserShim shim;
    private final List<IserPortal> portals = new ArrayList<>();
    private final List<MeasuredPortal> measured = new CopyOnWriteArrayList<>();

    /** An iSER portal's data-path touches and its traffic (connections closed and live), for the metrics. */
    public record MeasuredPortal(String address, IserTouches touches, Supplier<IserStats> stats) {}

    private IserPortals(LibIserShim shim) {
        this.shim = shim;
    }

    /** Null (with the reason logged) when this host cannot do iSER: no shim, no rdma-core. */
    public static IserPortals open() {
        LibIserShim shim = LibIserShim.load();
        return shim == null ? null : new IserPortals(shim);
    }

    /**
     * Listens on one iSER portal for at most {@code connections} connections, registering {@code cacheMemory};
     * throws IllegalStateException with the reason when it cannot.
     */
    public void listen(
            String host,
            int port,
            int connections,
            SessionServices tcpServices,
            EventLoopGroup login,
            ByteBufAllocator alloc,
            NodeMemory memory,
            int node,
            List<ByteBuffer> cacheMemory,
            IserTouches touches) {
        SessionSettings base = tcpServices.settings();
        IserSettings iser = IserSettings.defaults(base.queueDepth());
        SessionSettings settings = new SessionSettings(
                IserLimits.of(base.limits(), iser),
                base.queueDepth(),
                base.nopInInterval(),
                base.nopInTimeout(),
                base.portals(),
                base.targetPortalGroupTag(),
                base.resources(),
                base.chap());
        SessionServices services = new SessionServices(
                settings,
                tcpServices.targets(),
                tcpServices.sessions(),
                tcpServices.eventThreads(),
                tcpServices.threadStats(),
                tcpServices.guards());
        IserPortal.Acceptor acceptor = new IserPortal.Acceptor() {
            @Override
            public EventExecutor executorFor(String remoteAddress) {
                return login.next();
            }

            @Override
            public TransportEvents open(IscsiTransport transport) {
                return new IscsiConnection(transport, services, System::nanoTime);
            }
        };
        IserPortal portal = IserPortal.listen(
                shim,
                host,
                port,
                iser,
                memory,
                node,
                connections,
                cacheMemory,
                alloc,
                acceptor,
                new DefaultThreadFactory("iser-" + port, true),
                touches);
        portals.add(portal);
        measured.add(new MeasuredPortal(
                host + ":" + port, touches, () -> portal.totals().snapshot()));
    }

    public List<MeasuredPortal> measured() {
        return List.copyOf(measured);
    }

    @Override
    public void close() {
        for (IserPortal p : portals) {
            p.close();
        }
    }
}
