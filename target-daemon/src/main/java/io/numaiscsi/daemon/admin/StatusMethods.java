package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.cache.CacheCounters;
import io.numaiscsi.cache.NodeBlockPool;
import io.numaiscsi.config.CacheSettings;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.events.ThreadPlacements;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.session.EventThreadStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The admin's view of the NUMA cache and the event threads, as of the call: {@code cache.status} (the pools per node
 * and, per cached LUN, what it holds and how its reads went) and {@code thread.list} (each event thread's node, CPUs,
 * work so far and the LUNs it serves). The same numbers as the metrics, for an admin without Prometheus.
 */
final class StatusMethods {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** How long a LUN's thread may take to say who it is before it is listed as busy. */
    private static final long THREAD_QUERY_MILLIS = 500;

    private final TargetDaemon daemon;
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();

    StatusMethods(TargetDaemon daemon) {
        this.daemon = daemon;
    }

    JsonNode cache() {
        CacheSettings c = daemon.runningConfig().cache();
        ObjectNode r = JSON.objectNode()
                .put("mode", lower(c.mode()))
                .put("block_size", c.blockSize())
                .put("write_policy", lower(c.writePolicy()));
        ArrayNode pools = r.putArray("pools");
        for (int node = 0; node < daemon.nodeCount(); node++) {
            NodeBlockPool pool = daemon.cachePool(node);
            if (pool != null) {
                pools.addObject().put("node", node).put("bytes", pool.bytes()).put("free_bytes", pool.freeBytes());
            }
        }
        ArrayNode luns = r.putArray("luns");
        for (TargetDaemon.CachedLun lun : daemon.cachedLuns()) {
            CacheCounters.Snapshot s = lun.device().counters().snapshot();
            long hits = s.total(s.hits());
            long misses = s.total(s.misses());
            long bypasses = s.total(s.bypasses());
            long lookups = hits + misses + bypasses;
            luns.addObject()
                    .put("target", lun.target())
                    .put("lun", lun.lun())
                    .put("held_bytes", lun.device().heldBytes())
                    .put("dirty_bytes", lun.device().dirtyBytes())
                    .put("pinned_blocks", lun.device().pinnedSlots())
                    .put("hits", hits)
                    .put("misses", misses)
                    .put("read_throughs", s.total(s.readThroughs()))
                    .put("bypasses", bypasses)
                    .put("evictions", s.total(s.evictions()))
                    .put("forwards", s.total(s.forwards()))
                    .put("hit_ratio", lookups == 0 ? 0.0 : (double) hits / lookups);
        }
        return r;
    }

    JsonNode threads() {
        Map<String, ThreadPlacements.Placement> placed = new HashMap<>();
        for (ThreadPlacements.Placement p : ThreadPlacements.all()) {
            placed.put(p.thread(), p);
        }
        Map<String, List<String>> lunsByThread = lunsByThread();
        ArrayNode list = JSON.arrayNode();
        for (EventThreadStats s : daemon.threadStats().snapshot()) {
            String name = s.thread().getName();
            ObjectNode t = list.addObject().put("thread", name);
            ThreadPlacements.Placement p = placed.get(name);
            if (p != null) {
                t.put("node", p.node()).put("cpus", p.cpus());
            }
            t.put("commands", s.commands())
                    .put("executed_commands", s.executedCommands())
                    .put("bytes", s.bytes())
                    .put(
                            "cpu_seconds",
                            Math.max(0, mx.getThreadCpuTime(s.thread().getId())) / 1e9);
            ArrayNode luns = t.putArray("luns");
            lunsByThread.getOrDefault(name, List.of()).forEach(luns::add);
        }
        return list;
    }

    /** Each LUN's thread, asked on that thread (a unit knows its executor, not the executor's thread). */
    private Map<String, List<String>> lunsByThread() {
        Map<String, List<String>> out = new HashMap<>();
        for (RegisteredLun lun : daemon.registry().luns()) {
            CompletableFuture<String> name = new CompletableFuture<>();
            lun.unit()
                    .thread()
                    .execute(() -> name.complete(Thread.currentThread().getName()));
            String thread;
            try {
                thread = name.get(THREAD_QUERY_MILLIS, TimeUnit.MILLISECONDS);
            } catch (Exception busyOrGone) {
                thread = "(busy)";
            }
            out.computeIfAbsent(thread, k -> new ArrayList<>())
                    .add(lun.target() + " LUN " + lun.definition().id());
        }
        return out;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
