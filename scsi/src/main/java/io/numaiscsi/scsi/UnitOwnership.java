package io.numaiscsi.scsi;

import io.numaiscsi.scsi.TargetPortGroups.AccessState;
import java.util.function.Consumer;

/**
 * This gateway's access to a logical unit that moves between the gateways of a target (ALUA with explicit
 * transitions): one gateway at a time is active/optimized and writes the medium, the others are standby. The unit
 * moves only when an initiator asks (SET TARGET PORT GROUPS) or when this gateway is fenced, never because a command
 * reached a standby gateway. Implemented over the store's own arbitration (an RBD image's exclusive lock).
 */
public interface UnitOwnership {
    /**
     * This gateway's state now: {@link AccessState#ACTIVE_OPTIMIZED}, {@link AccessState#STANDBY} or
     * {@link AccessState#TRANSITIONING}. Cheap (a volatile read): it is looked at for every command.
     */
    AccessState state();

    /** The target port group whose gateway has the unit (this one's when active/optimized); 0 when none is known. */
    int ownerGroup();

    /**
     * SET TARGET PORT GROUPS asked for this gateway's group to become active ({@code active}) or standby; {@code done}
     * is called once, on any thread, with null (done) or why it failed.
     */
    void request(boolean active, Consumer<SenseReason> done);

    /** Where changes are told; set once by the unit before it serves. */
    void events(Events events);

    /** What the unit is told, on any thread. */
    interface Events {
        /** The state changed. */
        void changed();

        /** This gateway was fenced: {@code drained} must run once no command admitted before that writes is executing. */
        void lost(Runnable drained);
    }
}
