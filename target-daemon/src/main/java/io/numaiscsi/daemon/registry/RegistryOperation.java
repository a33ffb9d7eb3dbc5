package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.AluaDefinition;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.LunMap;
import io.numaiscsi.config.TargetDefinition;
import java.util.List;

/**
 * One change to the running target, as {@link TargetRegistry} applies it. The config file at start is a list of these;
 * a reload is the difference between two configs as a list of these; the admin API will send them one by one.
 */
public sealed interface RegistryOperation {

    /** A new target with its access rules and CHAP, without LUNs (its {@code luns} are not read). */
    record AddTarget(TargetDefinition target) implements RegistryOperation {
        @Override
        public String toString() {
            return "add target " + target.name();
        }
    }

    /** A new LUN of an existing target: opens its backing store, then makes it visible to initiators. */
    record AddLun(String target, LunDefinition lun) implements RegistryOperation {
        @Override
        public String toString() {
            String backing = lun.backing().name().toLowerCase(java.util.Locale.ROOT);
            String store = lun.rbd() != null
                    ? "rbd image " + lun.rbd().pool() + "/" + lun.rbd().image()
                    : lun.sizeBytes() == LunDefinition.FROM_DEVICE
                            ? backing + " " + lun.path()
                            : backing + (lun.path() != null ? " " + lun.path() : "") + ", " + lun.sizeBytes()
                                    + " bytes";
            return "add LUN " + lun.id() + " (" + store + ") to " + target;
        }
    }

    /**
     * Takes a LUN away from initiators at once; its backing store is flushed and closed once the commands it is
     * executing have completed.
     */
    record RemoveLun(String target, int lun) implements RegistryOperation {
        @Override
        public String toString() {
            return "remove LUN " + lun + " from " + target;
        }
    }

    /**
     * New access rules, CHAP or alias of an existing target ({@code target.luns()} is not read): logins from now on
     * follow them; sessions already logged in go on (ending those is the caller's choice).
     */
    record UpdateTarget(TargetDefinition target) implements RegistryOperation {
        @Override
        public String toString() {
            return "change access rules, CHAP or alias of target " + target.name();
        }
    }

    /**
     * Takes a target away: no new login finds it, and each of its LUNs goes as by {@link RemoveLun}. Its sessions stay
     * until the caller ends them (their commands then find no LUN).
     */
    record RemoveTarget(String target) implements RegistryOperation {
        @Override
        public String toString() {
            return "remove target " + target;
        }
    }

    /**
     * Grows a LUN while it serves (its backing store first); every session that has used it hears CAPACITY DATA HAS
     * CHANGED, and READ CAPACITY reports the new size.
     */
    record ResizeLun(String target, int lun, long sizeBytes) implements RegistryOperation {
        @Override
        public String toString() {
            return "resize LUN " + lun + " of " + target + " to " + sizeBytes + " bytes";
        }
    }

    /**
     * New LUN maps (LUN masking) of an existing target: each initiator's commands and REPORT LUNS follow its new view
     * at once, and the sessions whose view changed hear REPORTED LUNS DATA HAS CHANGED.
     */
    record SetLunMaps(String target, List<LunMap> maps) implements RegistryOperation {
        @Override
        public String toString() {
            return "set the LUN maps of " + target + " (" + maps.size() + " entries)";
        }
    }

    /**
     * The other gateways' target port groups of an existing target changed (a gateway group gained or lost a member);
     * this gateway's own port and group stay. Every unit reports the new groups and tells its nexuses.
     */
    record SetPortGroups(String target, AluaDefinition alua) implements RegistryOperation {
        @Override
        public String toString() {
            return "set the peer port groups of " + target + " (" + alua.peers().size() + " other gateways)";
        }
    }
}
