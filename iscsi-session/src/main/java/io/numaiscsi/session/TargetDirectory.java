package io.numaiscsi.session;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The targets this daemon exports, by name, in the order they were added. Logins read it on any thread; the registry's
 * control thread changes it, replacing the snapshot whole.
 */
public final class TargetDirectory {
    private volatile Map<String, ExportedTarget> byName = Map.of();

    public TargetDirectory(Collection<ExportedTarget> targets) {
        for (ExportedTarget t : targets) {
            add(t);
        }
    }

    public ExportedTarget find(String name) {
        return byName.get(name);
    }

    public Collection<ExportedTarget> all() {
        return byName.values();
    }

    public synchronized void add(ExportedTarget t) {
        if (byName.containsKey(t.name())) {
            throw new IllegalArgumentException("duplicate target " + t.name());
        }
        Map<String, ExportedTarget> next = new LinkedHashMap<>(byName);
        next.put(t.name(), t);
        byName = Collections.unmodifiableMap(next);
    }

    /** Puts {@code t} in place of the target of the same name, keeping its place in the order. */
    public synchronized void replace(ExportedTarget t) {
        if (!byName.containsKey(t.name())) {
            throw new IllegalArgumentException("no target " + t.name());
        }
        Map<String, ExportedTarget> next = new LinkedHashMap<>(byName);
        next.put(t.name(), t);
        byName = Collections.unmodifiableMap(next);
    }

    /** Takes a target away; logins from now on do not find it. */
    public synchronized void remove(String name) {
        Map<String, ExportedTarget> next = new LinkedHashMap<>(byName);
        next.remove(name);
        byName = Collections.unmodifiableMap(next);
    }

    /** The names, for logs and tests. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }
}
