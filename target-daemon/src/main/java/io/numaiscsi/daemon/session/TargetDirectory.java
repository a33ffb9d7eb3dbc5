package io.numaiscsi.daemon.session;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** The targets this daemon exports, by name. Immutable after start. */
public final class TargetDirectory {
    private final Map<String, ExportedTarget> byName = new LinkedHashMap<>();

    public TargetDirectory(Collection<ExportedTarget> targets) {
        for (ExportedTarget t : targets) {
            if (byName.putIfAbsent(t.name(), t) != null) {
                throw new IllegalArgumentException("duplicate target " + t.name());
            }
        }
    }

    public ExportedTarget find(String name) {
        return byName.get(name);
    }

    public Collection<ExportedTarget> all() {
        return byName.values();
    }
}
