package io.numaiscsi.daemon.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/** The JVM's own meters (Micrometer's binders), without the gauges that read -1 or NaN where the JVM cannot tell. */
final class JvmMeters {
    private JvmMeters() {}

    static void bindTo(MeterRegistry registry) {
        new JvmMemoryMetrics().bindTo(registry);
        // its GC notification listeners live as long as the daemon, as the registry does
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        dropUnknown(registry, "jvm.");
        dropUnknown(registry, "system.");
        dropUnknown(registry, "process.");
    }

    /**
     * Removes the gauges under {@code prefix} that read below zero or NaN now: a memory pool without a maximum
     * (jvm.memory.max -1), a load average the OS does not give. Such a value stays unknown for the JVM's life.
     */
    private static void dropUnknown(MeterRegistry registry, String prefix) {
        for (Meter m : registry.getMeters()) {
            if (m instanceof Gauge g && m.getId().getName().startsWith(prefix)) {
                double v = g.value();
                if (Double.isNaN(v) || v < 0) {
                    registry.remove(g);
                }
            }
        }
    }
}
