package io.numaiscsi.daemon;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.util.concurrent.EventExecutor;
import io.numaiscsi.blockdev.backstore.ProcessUser;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.cache.NodeBlockPool;
import io.numaiscsi.config.ChapCredentials;
import io.numaiscsi.config.InitiatorDefinition;
import io.numaiscsi.config.IscsiSettings;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.config.Portal;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.daemon.events.EventLoops;
import io.numaiscsi.daemon.events.LunEventLoops;
import io.numaiscsi.daemon.events.NettyTransport;
import io.numaiscsi.daemon.iser.IserPortals;
import io.numaiscsi.daemon.placement.CachePools;
import io.numaiscsi.daemon.placement.TargetPlacement;
import io.numaiscsi.daemon.registry.ConfigOperations;
import io.numaiscsi.daemon.registry.Credentials;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.daemon.registry.RegistryOperation;
import io.numaiscsi.daemon.registry.TargetRegistry;
import io.numaiscsi.daemon.reservations.ReservationFiles;
import io.numaiscsi.daemon.state.ModePageFiles;
import io.numaiscsi.iser.IserTouches;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.scsi.CommandCounters;
import io.numaiscsi.session.ChapAccount;
import io.numaiscsi.session.ChapAccounts;
import io.numaiscsi.session.ConnectionGuards;
import io.numaiscsi.session.CurrentChapAccounts;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.ServedPortals;
import io.numaiscsi.session.SessionAborts;
import io.numaiscsi.session.SessionInfo;
import io.numaiscsi.session.SessionServices;
import io.numaiscsi.session.SessionSettings;
import io.numaiscsi.session.SessionTable;
import io.numaiscsi.session.TargetDirectory;
import io.numaiscsi.tcp.TcpPortal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The whole target: backing stores, SCSI targets, sessions and portals, wired from one config. */
public final class TargetDaemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TargetDaemon.class);
    static final int TARGET_PORTAL_GROUP_TAG = 1;
    /** How long an initiator asked to log out has before its connection is closed (AsyncEvent 1's Parameter3). */
    public static final int LOGOUT_REQUEST_SECONDS = 5;

    private final TargetConfig config;
    private final ByteBufAllocator alloc;
    private final SessionTable sessions;
    private final EventThreadRegistry threadStats = new EventThreadRegistry();
    private final NumaResources numa;
    private EventLoops eventLoops;
    private TargetRegistry registry;
    private TcpPortal portal;
    private LivePortals portals;
    private SessionServices services;
    private CurrentChapAccounts chap;
    /** The discovery and per-initiator CHAP in force (the config's until the admin API changes them). */
    private ChapCredentials discoveryChap;

    private List<InitiatorDefinition> initiators;
    private volatile IserPortals iserPortals;
    private ConnectionGuards guards;
    private boolean closed;
    private CachePools cachePools;
    private ReservationFiles reservationFiles;
    private ModePageFiles modePageFiles;

    /** A LUN behind the NUMA cache, for the metrics. */
    public record CachedLun(String target, int lun, CachedBlockDevice device) {}

    public TargetDaemon(TargetConfig config) {
        this.config = config;
        this.sessions =
                new SessionTable(config.limits().maxSessions(), config.limits().maxSessionsPerInitiator());
        this.numa = new NumaResources(
                config.numa(), config.portals(), config.daemon().ioThreads());
        this.alloc = numa.allocator();
        this.discoveryChap = config.discoveryChap();
        this.initiators = config.initiators();
    }

    public void start() throws IOException, InterruptedException {
        DataDirectory.prepare(config.daemon().dataDir(), ProcessUser.uid(), ProcessUser.name());
        TargetPlacement placement = new TargetPlacement(
                numa.topology().nodeCount(),
                config.numa().placement(),
                numa.portalNode().index(),
                config.targets());
        int[] lunsPerNode = placement.lunsPerNode();
        eventLoops = new EventLoops(
                config.daemon().eventModel(),
                NettyTransport.of(config.daemon().tcpTransport()),
                config.daemon().eventSpin(),
                config.daemon().ioPoll(),
                numa.topology(),
                numa.portalNode(),
                lunsPerNode);
        LunEventLoops eventThreads = new LunEventLoops(eventLoops, placement);
        cachePools = CachePools.of(config.cache(), numa.topology(), numa.memory());
        BackingStores stores = new BackingStores(
                config.cache(),
                numa,
                placement,
                cachePools,
                BackingIoChoice.resolve(config.daemon().backingIo()));
        reservationFiles = new ReservationFiles(config.daemon().dataDir());
        modePageFiles = new ModePageFiles(config.daemon().dataDir());
        registry = new TargetRegistry(
                stores::open,
                eventThreads,
                alloc,
                new SessionAborts(sessions),
                config.cache().zeroCopyMin(),
                numa.locator(),
                reservationFiles,
                modePageFiles,
                config.group() == null ? null : config.group().member());
        registry.applyAll(ConfigOperations.of(config));
        reservationFiles.warnAboutUnclaimed();
        TargetDirectory directory = registry.directory();
        IscsiSettings iscsi = config.iscsi();
        TargetLimits limits = SessionLimits.targetLimits(iscsi);
        List<String> portalNames = new ArrayList<>();
        for (Portal p : config.portals()) {
            portalNames.add(p.toString());
        }
        LimitsSettings resources = SessionLimits.resources(config.limits());
        SessionLimits.log(resources, config);
        ServedPortals served = new ServedPortals(portalNames);
        chap = new CurrentChapAccounts(chapAccounts(discoveryChap, initiators));
        SessionSettings settings = new SessionSettings(
                limits,
                iscsi.queueDepth(),
                iscsi.nopInInterval(),
                iscsi.nopInTimeout(),
                served,
                TARGET_PORTAL_GROUP_TAG,
                resources,
                chap);
        guards = ConnectionGuards.of(resources);
        for (int node = 0; node < eventLoops.nodes(); node++) {
            for (EventExecutor lunThread : eventLoops.luns(node)) {
                lunThread.execute(threadStats::current); // every event thread shows in the metrics from the start
            }
        }
        portal = new TcpPortal(
                eventLoops.acceptor(),
                eventLoops.login(),
                eventLoops.transport().serverChannelClass());
        portals = new LivePortals(portal, served);
        services = new SessionServices(settings, directory, sessions, eventThreads, threadStats, guards);
        for (Portal p : config.portals()) {
            if (p.transport() == Portal.Transport.ISER) {
                listenIser(p, services);
                portals.addIser(p);
            } else {
                portals.addTcp(p, services, alloc);
            }
        }
    }

    /** Listens on one more TCP portal (the admin API); throws with the OS's reason when it cannot. */
    public synchronized LivePortals.Listening addPortal(Portal p) throws IOException, InterruptedException {
        if (p.transport() != Portal.Transport.TCP) {
            throw new IllegalArgumentException("iSER portals are opened at start only");
        }
        return portals.addTcp(p, services, alloc);
    }

    /** Stops listening on a TCP portal; the sessions that came in through it go on. Returns how many connections. */
    public synchronized int removePortal(LivePortals.Listening l) {
        return portals.removeTcp(l);
    }

    /** The portals listening now, in the order they were opened. */
    public List<LivePortals.Listening> portals() {
        return portals.list();
    }

    /** Replaces the discovery and per-initiator CHAP (the admin API); new logins use them at once. */
    public synchronized void replaceChap(ChapCredentials discovery, List<InitiatorDefinition> byInitiator) {
        chap.replace(chapAccounts(discovery, byInitiator));
        discoveryChap = discovery;
        initiators = List.copyOf(byInitiator);
    }

    /** An iSER portal (RFC 7145) beside the TCP ones; the host must have rdma-core and an RDMA device. */
    private void listenIser(Portal p, SessionServices services) {
        if (iserPortals == null) {
            iserPortals = IserPortals.open();
            if (iserPortals == null) {
                throw new IllegalStateException("portal " + p + " is iSER but this host cannot do RDMA (see the log)");
            }
        }
        List<ByteBuffer> cacheMemory = cachePools.memory();
        int hcaNode = numa.reportedNodeOfAddress(p.host());
        iserPortals.listen(
                p.host(),
                p.port(),
                p.connections(),
                services,
                eventLoops.login(),
                alloc,
                numa.memory(),
                numa.portalNode().index(),
                cacheMemory,
                new IserTouches(new DataTouches(numa.locator()), hcaNode));
    }

    /** {@code cache.size-per-node} on every node (auto: from each node's free memory), shared by its LUNs. */
    private static ChapAccounts chapAccounts(ChapCredentials discovery, List<InitiatorDefinition> initiators) {
        Map<String, ChapAccount> byInitiator = new HashMap<>();
        for (InitiatorDefinition i : initiators) {
            byInitiator.put(i.name(), Credentials.account(i.chap()));
        }
        return new ChapAccounts(Credentials.account(discovery), byInitiator);
    }

    /** The TCP portals' bound addresses. */
    public List<InetSocketAddress> boundAddresses() {
        return portals.list().stream()
                .map(LivePortals.Listening::bound)
                .filter(Objects::nonNull)
                .toList();
    }

    public EventThreadRegistry threadStats() {
        return threadStats;
    }

    public ByteBufAllocatorMetric bufferMetric() {
        return numa.allocator().metric();
    }

    /** Node {@code node}'s cache pool, or null (no cache there, or the cache is off). */
    public NodeBlockPool cachePool(int node) {
        return cachePools == null || node >= numa.topology().nodeCount() ? null : cachePools.pool(node);
    }

    public int nodeCount() {
        return numa.topology().nodeCount();
    }

    /** Every LUN behind the NUMA cache with its device open now (also ones added live); any thread. */
    public List<CachedLun> cachedLuns() {
        List<CachedLun> out = new ArrayList<>();
        if (registry != null) {
            for (RegisteredLun l : registry.luns()) {
                if (l.device() instanceof CachedBlockDevice cached) {
                    out.add(new CachedLun(l.target(), l.definition().id(), cached));
                }
            }
        }
        return out;
    }

    /** A LUN's data-path touches and what its commands did, for the metrics. */
    public record MeasuredLun(String target, int lun, DataTouches touches, CommandCounters counters) {}

    /** Every LUN with a device open now (also ones added live); any thread. */
    public List<MeasuredLun> measuredLuns() {
        List<MeasuredLun> out = new ArrayList<>();
        if (registry != null) {
            for (RegisteredLun l : registry.luns()) {
                out.add(new MeasuredLun(
                        l.target(),
                        l.definition().id(),
                        l.unit().touches(),
                        l.unit().counters()));
            }
        }
        return out;
    }

    /** Every iSER portal's data-path touches (none without an iSER portal); any thread. */
    public List<IserPortals.MeasuredPortal> measuredIserPortals() {
        IserPortals p = iserPortals;
        return p == null ? List.of() : p.measured();
    }

    /** Login slots, the failed-login throttle and the buffer budget; null before {@link #start()}. */
    public ConnectionGuards guards() {
        return guards;
    }

    /** What a reload did: the changes applied, those that failed (with why) and those left for a restart. */
    public record ReloadReport(int applied, List<String> failures, List<String> needRestart) {}

    /**
     * Applies what changed between the running targets and {@code wanted} (SIGHUP, a gateway group's change): LUNs
     * added and removed live, everything else reported as needing a restart. Each change is logged; one that fails is
     * logged and skipped.
     */
    public synchronized ReloadReport reload(TargetConfig wanted) {
        ConfigOperations.Plan plan = ConfigOperations.diff(runningConfig(), wanted);
        for (String change : plan.needRestart()) {
            LOG.warn("reload: not applied until a restart: {}", change);
        }
        int applied = 0;
        List<String> failures = new ArrayList<>();
        for (RegistryOperation op : plan.operations()) {
            try {
                registry.apply(op).get();
                applied++;
                LOG.info("reload: {}", op);
                if (op instanceof RegistryOperation.RemoveTarget removed) {
                    askToLogOut(s -> s.target().equals(removed.target()), "target " + removed.target() + " removed");
                } else if (op instanceof RegistryOperation.UpdateTarget updateTarget) {
                    LOG.info(
                            "reload: sessions already logged in to {} go on; `numa-iscsi-admin target-set --force` "
                                    + "ends those the new rules refuse",
                            updateTarget.target().name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                // the registry's exception repeats the operation in its message: the store's own says why
                Throwable why = e.getCause().getCause() instanceof IOException io ? io : e.getCause();
                LOG.error("reload: {} failed: {}", op, Reasons.of(why));
                failures.add(op + ": " + Reasons.of(why));
            }
        }
        LOG.info(
                "reload: {} of {} change(s) applied", applied, plan.operations().size());
        return new ReloadReport(applied, failures, plan.needRestart());
    }

    /**
     * The config as served now: its settings with the portals, discovery and per-initiator CHAP, targets and LUNs
     * that every change since start has left.
     */
    public synchronized TargetConfig runningConfig() {
        return config.withPortals(portals.portals())
                .withChap(discoveryChap, initiators)
                .withTargets(registry.targets());
    }

    /** The config the daemon started with (its command-line overrides applied). */
    public TargetConfig startConfig() {
        return config;
    }

    /**
     * Applies one change (the admin API), serialized with reloads; throws with the reason when it cannot be applied,
     * nothing having changed then.
     */
    public synchronized void apply(RegistryOperation op) throws IOException, InterruptedException {
        registry.applyAll(List.of(op));
    }

    /**
     * Asks the initiators of the sessions {@code which} selects to log out within {@link #LOGOUT_REQUEST_SECONDS}
     * (an Asynchronous Message); those that do not are disconnected then. Returns how many were asked.
     */
    public int askToLogOut(Predicate<SessionInfo> which, String reason) {
        return sessions.requestLogout(which, LOGOUT_REQUEST_SECONDS, reason);
    }

    /**
     * The first step of a clean stop (SIGTERM): no new connection is accepted, every initiator is asked to log out,
     * and this waits until all have or {@link #LOGOUT_REQUEST_SECONDS} (plus a second) have passed. Initiators that
     * log out this way log in again on their own once the target is back.
     */
    public void logOutSessions() throws InterruptedException {
        if (portal != null) {
            portal.close();
        }
        int asked = askToLogOut(s -> true, "the target is stopping");
        if (asked == 0) {
            return;
        }
        LOG.info("stopping: asked {} session(s) to log out", asked);
        if (sessions.awaitNoSessions(Duration.ofSeconds(LOGOUT_REQUEST_SECONDS + 1))) {
            LOG.info("stopping: every session has logged out");
        } else {
            LOG.warn("stopping: {} session(s) still open; closing them", sessions.size());
        }
    }

    /** The running model of targets and LUNs; null before {@link #start()}. */
    public TargetRegistry registry() {
        return registry;
    }

    public SessionTable sessions() {
        return sessions;
    }

    /** Stops accepting, drops connections, makes every acknowledged write durable, closes the stores. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (portal != null) {
            portal.close();
        }
        if (iserPortals != null) {
            iserPortals.close();
        }
        if (registry != null) {
            registry.releaseSharedImages(Duration.ofSeconds(30));
            registry.flushAll(Duration.ofSeconds(60));
        }
        if (eventLoops != null) {
            eventLoops.close();
        }
        if (registry != null) {
            registry.close();
        }
        if (reservationFiles != null) {
            reservationFiles.close();
        }
        if (modePageFiles != null) {
            modePageFiles.close();
        }
        if (cachePools != null) {
            try {
                cachePools.free();
            } catch (IllegalStateException e) {
                LOG.warn("cache memory not freed: {}", e.getMessage());
            }
        }
        numa.close();
        LOG.info("stopped");
    }
}
