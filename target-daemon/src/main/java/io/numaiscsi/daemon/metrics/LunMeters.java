package io.numaiscsi.daemon.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The meters of things that come and go while the daemon runs (LUNs, portals), keyed by the object they read. A thing
 * gone takes its meters out of the registry, so one added later under the same tags gets meters reading it, not the
 * one before it (a registry hands back an existing meter for the same name and tags).
 */
final class LunMeters {
    private final MeterRegistry registry;
    private final IdentityHashMap<Object, List<Meter>> byKey = new IdentityHashMap<>();

    LunMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Removes the meters of keys no longer among {@code now}, then registers those of new ones. */
    <T> void update(List<T> now, Function<T, Object> key, Function<T, List<Meter>> register) {
        IdentityHashMap<Object, T> current = new IdentityHashMap<>();
        for (T t : now) {
            current.put(key.apply(t), t);
        }
        byKey.entrySet().removeIf(e -> {
            if (current.containsKey(e.getKey())) {
                return false;
            }
            e.getValue().forEach(registry::remove);
            return true;
        });
        for (Map.Entry<Object, T> e : current.entrySet()) {
            if (!byKey.containsKey(e.getKey())) {
                byKey.put(e.getKey(), register.apply(e.getValue()));
            }
        }
    }
}
