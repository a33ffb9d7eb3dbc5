package io.numaiscsi.daemon;

import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.config.TargetDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * The LUNs a reload is about to remove that the config file never held: added through the admin API and not saved.
 * A SIGHUP makes the running LUNs what the file says, so it removes them too; the daemon names them first.
 */
final class UnsavedLuns {

    private UnsavedLuns() {}

    /**
     * Running LUNs absent from {@code reread} (the file as read now) and from {@code lastKnown} (the file as read or
     * written before), of targets the file still has: a target gone from the file is left running until a restart.
     * Targets match by exact name, as {@link io.numaiscsi.daemon.registry.ConfigOperations#diff} matches them.
     */
    static List<String> droppedBy(TargetConfig running, TargetConfig lastKnown, TargetConfig reread) {
        List<String> out = new ArrayList<>();
        for (TargetDefinition t : running.targets()) {
            TargetDefinition wanted = named(reread, t.name());
            if (wanted == null) {
                continue;
            }
            TargetDefinition known = named(lastKnown, t.name());
            for (LunDefinition lun : t.luns()) {
                if (wanted.lun(lun.id()) == null && (known == null || known.lun(lun.id()) == null)) {
                    out.add(t.name() + " LUN " + lun.id());
                }
            }
        }
        return out;
    }

    private static TargetDefinition named(TargetConfig config, String name) {
        for (TargetDefinition t : config.targets()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
