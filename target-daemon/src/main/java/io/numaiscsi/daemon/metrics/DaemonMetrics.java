package io.numaiscsi.daemon.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.util.internal.PlatformDependent;
import io.numaiscsi.cache.CacheCounters;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.events.ThreadPlacements;
import io.numaiscsi.daemon.group.GroupMember;
import io.numaiscsi.daemon.iser.IserPortals;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.session.BufferBudget;
import io.numaiscsi.session.ConnectionGuards;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.EventThreadStats;
import io.numaiscsi.session.LoginAdmission;
import io.numaiscsi.session.SessionTable;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The daemon's metrics in Prometheus form. Per target and LUN: commands, bytes, latency histograms, CHECK CONDITIONs by
 * sense key, commands executing ({@link LunCommandCollector}); sessions by target and initiator; iSER traffic per
 * portal; the JVM (memory, GC, threads, classes, CPU); per LUN and node the NUMA cache and data touches. Per event
 * thread, the NUMA evidence: commands, bytes, CPU seconds and the per-stage queueing delay (sum and count: mean =
 * rate(sum) / rate(count)); event threads appear as they serve their first command, so those meters are registered
 * lazily at scrape time. No gauge reads -1 for "unknown": what the JVM or Netty cannot tell is left out.
 */
public final class DaemonMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final EventThreadRegistry threads;
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final Set<Thread> registered = new HashSet<>();
    private Supplier<List<TargetDaemon.MeasuredLun>> measuredLuns = List::of;
    private Supplier<List<IserPortals.MeasuredPortal>> measuredIserPortals = List::of;
    /** Meters of each LUN's touches and cache, by the object they read: a LUN removed takes its meters along. */
    private final LunMeters lunMeters;

    private final LunMeters portalMeters;
    private final Set<String> placementsRegistered = new HashSet<>();
    private final Supplier<List<TargetDaemon.CachedLun>> cachedLuns;
    private final LunMeters cacheMeters;

    public DaemonMetrics(
            EventThreadRegistry threads, SessionTable sessions, Supplier<List<TargetDaemon.CachedLun>> cachedLuns) {
        this(threads, sessions, cachedLuns, null);
    }

    /**
     * With {@code buffers}: the pooled allocator's memory in use, to see buffer leaks. {@code cachedLuns} is read at
     * every scrape: LUNs come and go while the daemon runs.
     */
    public DaemonMetrics(
            EventThreadRegistry threads,
            SessionTable sessions,
            Supplier<List<TargetDaemon.CachedLun>> cachedLuns,
            ByteBufAllocatorMetric buffers) {
        this.threads = threads;
        this.cachedLuns = cachedLuns;
        this.lunMeters = new LunMeters(registry);
        this.portalMeters = new LunMeters(registry);
        this.cacheMeters = new LunMeters(registry);
        Gauge.builder("iscsi_sessions", sessions, SessionTable::size)
                .description("open iSCSI sessions")
                .strongReference(true)
                .register(registry);
        registry.getPrometheusRegistry().register(new SessionCollector(sessions));
        registry.getPrometheusRegistry().register(new LunCommandCollector(() -> measuredLuns.get()));
        registry.getPrometheusRegistry().register(new IserPortalCollector(() -> measuredIserPortals.get()));
        if (buffers != null) {
            Gauge.builder("netty_pooled_direct_bytes", buffers, ByteBufAllocatorMetric::usedDirectMemory)
                    .description("direct memory held by the pooled PDU/data buffer allocator")
                    .strongReference(true)
                    .register(registry);
            if (buffers.usedHeapMemory() >= 0) { // -1: the allocator keeps no heap arenas
                Gauge.builder("netty_pooled_heap_bytes", buffers, ByteBufAllocatorMetric::usedHeapMemory)
                        .description("heap memory held by the pooled buffer allocator")
                        .strongReference(true)
                        .register(registry);
            }
        }
        JvmMeters.bindTo(registry);
    }

    /** The daemon-wide guards: buffer budget in use and its limit, connections in login, direct memory. */
    public DaemonMetrics guards(ConnectionGuards guards) {
        Gauge.builder("iscsi_buffer_budget_used_bytes", guards.buffers(), BufferBudget::used)
                .description(
                        "bytes charged to the daemon-wide buffer budget: write buffers until released, READ buffers "
                                + "while they execute (data queued in a socket is bounded per connection instead)")
                .strongReference(true)
                .register(registry);
        Gauge.builder("iscsi_buffer_budget_limit_bytes", guards.buffers(), BufferBudget::limit)
                .description("the daemon-wide data buffer budget (limits.buffer-memory)")
                .strongReference(true)
                .register(registry);
        Gauge.builder("iscsi_logins_in_progress", guards.logins(), LoginAdmission::inLogin)
                .description("connections still in login")
                .strongReference(true)
                .register(registry);
        if (PlatformDependent.usedDirectMemory() >= 0) { // -1: Netty does not count its direct memory
            Gauge.builder("netty_direct_memory_used_bytes", () -> PlatformDependent.usedDirectMemory())
                    .description("direct memory Netty has reserved")
                    .strongReference(true)
                    .register(registry);
        }
        Gauge.builder("netty_direct_memory_max_bytes", () -> PlatformDependent.maxDirectMemory())
                .description("the direct memory ceiling")
                .strongReference(true)
                .register(registry);
        return this;
    }

    /**
     * Per cached LUN: pinned blocks, dirty bytes and write-back batches and bytes (write-back); per node of it: hits,
     * misses, evictions, bytes served from local and remote memory, forwards.
     */
    private List<Meter> registerCache(TargetDaemon.CachedLun lun) {
        List<Meter> meters = new ArrayList<>();
        Tags lunTags = Tags.of("target", lun.target(), "lun", Integer.toString(lun.lun()));
        meters.add(Gauge.builder("cache_pinned_blocks", lun.device(), d -> d.pinnedSlots())
                .description("cache blocks pinned now (reads in flight, buffers sent in place not yet released)")
                .tags(lunTags)
                .strongReference(true)
                .register(registry));
        meters.add(Gauge.builder("cache_held_bytes", lun.device(), d -> d.heldBytes())
                .description("bytes of its node's cache pool the LUN holds now (the pool is shared by the node's LUNs; "
                        + "each is sure of half the pool divided among them)")
                .tags(lunTags)
                .strongReference(true)
                .register(registry));
        meters.add(Gauge.builder("cache_dirty_bytes", lun.device(), d -> d.dirtyBytes())
                .description("bytes of cache blocks not yet written back to the backing store (write-back)")
                .tags(lunTags)
                .strongReference(true)
                .register(registry));
        meters.add(FunctionCounter.builder("cache_writeback_batches", lun.device(), d -> d.writebackBatches())
                .description("write-back batches started (flush, FUA, slot pressure, dirty ratio or expiry, close)")
                .tags(lunTags)
                .register(registry));
        meters.add(FunctionCounter.builder("cache_writeback_bytes", lun.device(), d -> d.writebackBytes())
                .description("bytes written back to the backing store by write-back batches")
                .tags(lunTags)
                .register(registry));
        CacheCounters counters = lun.device().counters();
        int nodes = counters.snapshot().hits().length;
        for (int node = 0; node < nodes; node++) {
            int n = node;
            Tags tags = lunTags.and("node", Integer.toString(node));
            meters.add(counter("cache_hits", "cache block hits", tags, counters, c -> c.hits()[n]));
            meters.add(counter(
                    "cache_misses",
                    "cache block misses: filled, waiting on a fill or read through (a hit "
                            + "ratio is hits / (hits + misses + bypasses))",
                    tags,
                    counters,
                    c -> c.misses()[n]));
            meters.add(counter(
                    "cache_read_throughs",
                    "misses read straight from the backing store without taking a "
                            + "slot (not admitted: no reuse seen yet, or a scan); also counted in cache_misses",
                    tags,
                    counters,
                    c -> c.readThroughs()[n]));
            meters.add(counter("cache_evictions", "cache blocks evicted", tags, counters, c -> c.evictions()[n]));
            meters.add(counter(
                    "cache_forwards",
                    "requests forwarded to this node's workers",
                    tags,
                    counters,
                    c -> c.forwards()[n]));
            meters.add(counter(
                    "cache_bypasses",
                    "block reads that bypassed the cache (no free slot)",
                    tags,
                    counters,
                    c -> c.bypasses()[n]));
            meters.add(counter(
                    "cache_in_place_bytes",
                    "bytes of this node's blocks sent straight from the blocks, no "
                            + "copy (iSER RDMA Write; TCP reads of at least cache.zero-copy-min)",
                    tags,
                    counters,
                    c -> c.inPlaceBytes()[n]));
        }
        return meters;
    }

    private Meter counter(
            String name,
            String description,
            Tags tags,
            CacheCounters counters,
            ToLongFunction<CacheCounters.Snapshot> value) {
        return FunctionCounter.builder(name, counters, c -> value.applyAsLong(c.snapshot()))
                .description(description)
                .tags(tags)
                .register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** This gateway's gateway group: the version it serves, the members, the LUNs it serves active/optimized. */
    public DaemonMetrics group(GroupMember group) {
        Gauge.builder("gateway_group_configuration_version", group, g -> g.configurationVersion())
                .description("version of the gateway group's configuration this gateway serves")
                .strongReference(true)
                .register(registry);
        Gauge.builder("gateway_group_members", group, g -> g.memberCount())
                .description("members of the gateway group")
                .strongReference(true)
                .register(registry);
        Gauge.builder("gateway_group_luns_served_here", group, g -> g.lunsServedHere())
                .description("LUNs of the group this gateway serves active/optimized (holds the image's lock)")
                .strongReference(true)
                .register(registry);
        Gauge.builder("gateway_group_problem", group, g -> g.hasProblem() ? 1 : 0)
                .description("1 while this gateway cannot read or apply the group's configuration (see group-status)")
                .strongReference(true)
                .register(registry);
        return this;
    }

    /** The LUNs whose commands and data-path touches are exported (read at every scrape: LUNs come and go). */
    public DaemonMetrics luns(Supplier<List<TargetDaemon.MeasuredLun>> luns) {
        measuredLuns = luns;
        return this;
    }

    /** The iSER portals whose traffic and data-path touches (the RDMA device's and the staging copies) are exported. */
    public DaemonMetrics iserPortals(Supplier<List<IserPortals.MeasuredPortal>> portals) {
        measuredIserPortals = portals;
        return this;
    }

    /** Prometheus text exposition of every meter. */
    public synchronized String scrape() {
        for (EventThreadStats s : threads.snapshot()) {
            if (registered.add(s.thread())) {
                register(s);
            }
        }
        lunMeters.update(
                measuredLuns.get(),
                TargetDaemon.MeasuredLun::touches,
                lun -> registerTouches(
                        "data_touched_bytes",
                        "bytes a CPU touched on the LUN's data path (a copy counts source and destination), "
                                + "by the node of the CPU and of the memory",
                        lun.touches(),
                        Tags.of("target", lun.target(), "lun", Integer.toString(lun.lun())),
                        "cpu_node"));
        portalMeters.update(
                measuredIserPortals.get(),
                p -> p.touches().touches(),
                portal -> registerTouches(
                        "iser_touched_bytes",
                        "bytes of an iSER portal's data path the RDMA device read or wrote (by_node: the "
                                + "device's) or a connection thread copied (by_node: the CPU's), by the node of the memory",
                        portal.touches().touches(),
                        Tags.of("portal", portal.address()),
                        "by_node"));
        cacheMeters.update(cachedLuns.get(), TargetDaemon.CachedLun::device, this::registerCache);
        for (ThreadPlacements.Placement p : ThreadPlacements.all()) {
            if (placementsRegistered.add(p.thread())) {
                Gauge.builder("numa_thread_pinned", () -> 1)
                        .description("a thread the daemon pinned: its node and the CPUs it may run on")
                        .tags(Tags.of("thread", p.thread(), "node", Integer.toString(p.node()), "cpus", p.cpus()))
                        .register(registry);
            }
        }
        return registry.scrape();
    }

    /**
     * Every byte {@code t} recorded, by kind, node of the toucher ({@code nodeLabel}) and node of the memory
     * ("unknown": an unpinned thread, memory whose node we cannot know such as the page cache, a NIC without a node).
     */
    private List<Meter> registerTouches(String name, String description, DataTouches t, Tags base, String nodeLabel) {
        List<Meter> meters = new ArrayList<>();
        for (DataTouches.Kind kind : DataTouches.Kind.values()) {
            for (int by = -1; by < t.nodes(); by++) {
                for (int mem = -1; mem < t.nodes(); mem++) {
                    int b = by;
                    int m = mem;
                    Tags tags = base.and(
                            "kind", kind.name().toLowerCase(Locale.ROOT), nodeLabel, node(by), "mem_node", node(mem));
                    meters.add(FunctionCounter.builder(name, t, x -> x.bytes(kind, b, m))
                            .description(description)
                            .tags(tags)
                            .register(registry));
                }
            }
        }
        return meters;
    }

    private static String node(int n) {
        return n < 0 ? "unknown" : Integer.toString(n);
    }

    private void register(EventThreadStats s) {
        Thread t = s.thread();
        Tags tags = Tags.of("thread", t.getName());
        FunctionCounter.builder("iscsi_thread_commands", s, EventThreadStats::commands)
                .description("SCSI commands answered by this event thread")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("iscsi_thread_bytes", s, EventThreadStats::bytes)
                .description("data bytes moved by the commands this event thread answered")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("iscsi_thread_executed_commands", s, EventThreadStats::executedCommands)
                .description("SCSI commands executed on this thread (the LUN's event thread)")
                .tags(tags)
                .register(registry);
        long id = t.getId();
        FunctionCounter.builder("iscsi_thread_cpu_seconds", mx, m -> Math.max(0, m.getThreadCpuTime(id)) / 1e9)
                .description("CPU time of this event thread")
                .tags(tags)
                .register(registry);
        for (EventThreadStats.Stage stage : EventThreadStats.Stage.values()) {
            Tags st = tags.and("stage", stage.name().toLowerCase(Locale.ROOT));
            FunctionCounter.builder("iscsi_stage_delay_seconds", s, x -> x.delaySumNanos(stage) / 1e9)
                    .description("queueing delay per stage, summed")
                    .tags(st)
                    .register(registry);
            FunctionCounter.builder("iscsi_stage_commands", s, x -> x.delayCount(stage))
                    .description("commands measured per stage")
                    .tags(st)
                    .register(registry);
        }
    }
}
