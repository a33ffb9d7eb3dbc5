package io.numaiscsi.daemon.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.numaiscsi.daemon.session.EventThreadRegistry;
import io.numaiscsi.daemon.session.EventThreadStats;
import io.numaiscsi.daemon.session.SessionTable;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashSet;
import java.util.Set;

/**
 * The daemon's evidence in Prometheus form: per event thread commands, bytes, CPU seconds and the
 * per-stage queueing delay (sum and count: mean = rate(sum) / rate(count)); sessions. Event threads
 * appear as they serve their first command, so meters are registered lazily at scrape time.
 */
public final class DaemonMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final EventThreadRegistry threads;
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final Set<Thread> registered = new HashSet<>();

    public DaemonMetrics(EventThreadRegistry threads, SessionTable sessions) {
        this.threads = threads;
        Gauge.builder("iscsi_sessions", sessions, SessionTable::size).description("open iSCSI sessions").register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Prometheus text exposition of every meter. */
    public synchronized String scrape() {
        for (EventThreadStats s : threads.snapshot()) {
            if (registered.add(s.thread())) {
                register(s);
            }
        }
        return registry.scrape();
    }

    private void register(EventThreadStats s) {
        Thread t = s.thread();
        Tags tags = Tags.of("thread", t.getName());
        FunctionCounter.builder("iscsi_thread_commands", s, EventThreadStats::commands)
                .description("SCSI commands answered by this event thread").tags(tags).register(registry);
        FunctionCounter.builder("iscsi_thread_bytes", s, EventThreadStats::bytes)
                .description("data bytes moved by the commands this event thread answered").tags(tags).register(registry);
        FunctionCounter.builder("iscsi_thread_executed_commands", s, EventThreadStats::executedCommands)
                .description("SCSI commands executed on this thread (the LUN's event thread)").tags(tags).register(registry);
        long id = t.getId();
        FunctionCounter.builder("iscsi_thread_cpu_seconds", mx, m -> Math.max(0, m.getThreadCpuTime(id)) / 1e9)
                .description("CPU time of this event thread").tags(tags).register(registry);
        for (EventThreadStats.Stage stage : EventThreadStats.Stage.values()) {
            Tags st = tags.and("stage", stage.name().toLowerCase());
            FunctionCounter.builder("iscsi_stage_delay_seconds", s, x -> x.delaySumNanos(stage) / 1e9)
                    .description("queueing delay per stage, summed").tags(st).register(registry);
            FunctionCounter.builder("iscsi_stage_commands", s, x -> x.delayCount(stage))
                    .description("commands measured per stage").tags(st).register(registry);
        }
    }
}
