package io.numaiscsi.daemon.events;

import io.numaiscsi.numa.CpuList;
import io.numaiscsi.numa.CpuPinning;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every thread the daemon pinned, where, as it started: logged once each and listed in the metrics. */
public final class ThreadPlacements {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadPlacements.class);
    private static final List<Placement> ALL = new CopyOnWriteArrayList<>();

    /** One pinned thread: its node and the CPUs it may run on. */
    public record Placement(String thread, int node, String cpus) {}

    private ThreadPlacements() {}

    /** Called by the thread itself right after pinning. */
    public static void record(Thread t, int node, boolean pinned) {
        String cpus = CpuList.format(CpuPinning.currentAffinity());
        ALL.add(new Placement(t.getName(), node, cpus));
        if (pinned) {
            LOG.info("thread {} on node {}, CPUs {}", t.getName(), node, cpus);
        } else {
            LOG.warn("thread {} meant for node {} is not pinned (CPUs {})", t.getName(), node, cpus);
        }
    }

    /** Threads of {@code pinning} (which pins each one as it starts) recorded here once pinned. */
    public static ThreadFactory recording(ThreadFactory pinning, int node) {
        return task -> pinning.newThread(() -> {
            record(Thread.currentThread(), node, true);
            task.run();
        });
    }

    public static List<Placement> all() {
        return List.copyOf(ALL);
    }
}
