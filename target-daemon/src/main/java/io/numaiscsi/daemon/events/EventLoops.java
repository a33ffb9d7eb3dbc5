package io.numaiscsi.daemon.events;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaiscsi.config.DaemonSettings.EventModel;
import io.numaiscsi.numa.CpuPinning;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.NumaNode;
import io.numaiscsi.numa.NumaTopology;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's event loop groups for one event model. PER_LUN: an acceptor and a login thread on the portal's node
 * (all its CPUs), and per node one event thread per LUN homed there, each pinned to one core of that node.
 * CENTRALIZED: a single thread on the portal's node that accepts, logs in and serves everything.
 */
public final class EventLoops implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);

    private final EventLoopGroup acceptor;
    private final EventLoopGroup login;
    /** Indexed by node; every entry is the same group under CENTRALIZED. */
    private final EventLoopGroup[] luns;

    private final NettyTransport transport;

    /**
     * {@code lunsPerNode[n]}: LUNs homed on node n at start (a node with none still gets one thread for later).
     *
     * @throws IllegalStateException {@code configured} is io_uring and the kernel or the native library refuses it
     */
    public EventLoops(
            EventModel model,
            NettyTransport configured,
            Duration eventSpin,
            Duration ioPoll,
            NumaTopology topology,
            NumaNode portalNode,
            int[] lunsPerNode) {
        if (configured == NettyTransport.IO_URING && model == EventModel.PER_LUN) {
            // Measured with Netty 4.2.18: a connection moved from the login thread to its LUN's thread reads nothing
            // more (its recv stays on the old ring), so every session times out after login.
            throw new IllegalStateException("daemon.tcp-transport io_uring needs daemon.event-model: centralized "
                    + "(Netty's io_uring channels stop reading after moving from the login thread to a LUN's thread)");
        }
        this.transport = usable(configured);
        long spin = eventSpin.toNanos();
        long poll = ioPoll.toNanos();
        if (spin > 0 || poll > 0) {
            if (transport == NettyTransport.EPOLL) {
                LOG.info(
                        "event threads poll {} us before they block while their waits are that short"
                                + " (daemon.event-spin), and up to {} us for their LUNs' io_uring completions as their"
                                + " recent waits for I/O say (daemon.io-poll)",
                        spin / 1000,
                        poll / 1000);
            } else {
                LOG.warn(
                        "daemon.event-spin and daemon.io-poll are for the epoll transport; {} event threads block at"
                                + " once and io_uring completions come from the rings' reapers",
                        transport.configName());
                spin = 0;
                poll = 0;
            }
        }
        luns = new EventLoopGroup[topology.nodeCount()];
        if (model == EventModel.CENTRALIZED) {
            acceptor = group(1, new NodePinnedFactory("event", portalNode, false), spin, poll);
            login = acceptor;
            Arrays.fill(luns, acceptor);
            LOG.info("event model CENTRALIZED: 1 thread on node {}", portalNode.index());
        } else {
            acceptor = group(1, new NodePinnedFactory("acceptor", portalNode, false), 0, 0);
            login = group(1, new NodePinnedFactory("login", portalNode, false), 0, 0);
            int[] threadsPerNode = new int[luns.length];
            for (NumaNode node : topology.nodes()) {
                int threads = lunEventThreads(lunsPerNode[node.index()], node.cpuCount());
                threadsPerNode[node.index()] = threads;
                luns[node.index()] =
                        group(threads, new NodePinnedFactory("lun-event-n" + node.index(), node, true), spin, poll);
            }
            LOG.info(
                    "event model PER_LUN: LUNs per node {}, LUN event threads per node {} (at most one per core)",
                    Arrays.toString(lunsPerNode),
                    Arrays.toString(threadsPerNode));
        }
    }

    /**
     * One event thread per LUN, but no more than the node has cores: the threads are pinned one to a core, and two on
     * one core take turns through the scheduler, which measured 6x the CPU per I/O of one thread serving both
     * (results/2026-11-25-queue-must/scaling). Beyond the cores, LUNs share threads round robin, as SPDK's reactors.
     */
    static int lunEventThreads(int luns, int nodeCores) {
        return Math.max(1, Math.min(luns, nodeCores));
    }

    /** epoll falls back to NIO with a warning (the daemon still serves); io_uring, asked for by name, does not. */
    private static NettyTransport usable(NettyTransport configured) {
        String why = configured.unavailableReason();
        if (why == null) {
            LOG.info("network I/O: {}", configured.configName());
            return configured;
        }
        if (configured == NettyTransport.IO_URING) {
            throw new IllegalStateException(
                    "daemon.tcp-transport io_uring is not available here: " + why + " (use epoll)");
        }
        LOG.warn("network I/O: native {} unavailable ({}); using nio", configured.configName(), why);
        return NettyTransport.NIO;
    }

    private EventLoopGroup group(int threads, ThreadFactory tf, long spinNanos, long ioPollNanos) {
        return new MultiThreadIoEventLoopGroup(threads, tf, transport.ioHandlerFactory(spinNanos, ioPollNanos));
    }

    public EventLoopGroup acceptor() {
        return acceptor;
    }

    public EventLoopGroup login() {
        return login;
    }

    /** The LUN event threads of one node. */
    public EventLoopGroup luns(int node) {
        return luns[node];
    }

    public int nodes() {
        return luns.length;
    }

    /** The transport every group uses (the configured one, or nio where epoll is missing). */
    public NettyTransport transport() {
        return transport;
    }

    @Override
    public void close() {
        Set<EventLoopGroup> all = new LinkedHashSet<>(List.of(luns));
        all.add(login);
        all.add(acceptor);
        for (EventLoopGroup g : all) {
            if (!g.isShuttingDown()) {
                g.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
    }

    /**
     * Netty's threads, pinned when they start: to one core of the node each (event threads, round robin over its
     * cores) or to all of the node's CPUs (acceptor and login, which do little). Each one logs where it went.
     */
    private static final class NodePinnedFactory implements ThreadFactory {
        private final DefaultThreadFactory names;
        private final NumaNode node;
        private final boolean oneCore;
        private final AtomicInteger ordinal = new AtomicInteger();

        NodePinnedFactory(String prefix, NumaNode node, boolean oneCore) {
            this.names = new DefaultThreadFactory(prefix, true);
            this.node = node;
            this.oneCore = oneCore;
        }

        @Override
        public Thread newThread(Runnable task) {
            int core = ordinal.getAndIncrement();
            return names.newThread(() -> {
                boolean pinned = oneCore ? CpuPinning.pinCurrentThreadToCore(node, core) : pinToNode();
                ThreadPlacements.record(Thread.currentThread(), node.index(), pinned);
                task.run();
            });
        }

        private boolean pinToNode() {
            NodeThread.bindCurrentThread(node.index());
            return CpuPinning.pinCurrentThread(node);
        }
    }
}
