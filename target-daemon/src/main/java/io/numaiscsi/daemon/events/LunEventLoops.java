package io.numaiscsi.daemon.events;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.numaiscsi.session.EventThreads;
import io.numaiscsi.session.ExportedTarget;
import io.numaiscsi.scsi.LogicalUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Gives every logical unit one event loop, round robin over a group sized to the LUN count at start (so each
 * configured LUN has its own; LUNs added later share). A target's home is the loop of its first LUN: its connections
 * live there, and commands for its other LUNs hop to their loop through that loop's lock-free queue.
 */
public final class LunEventLoops implements EventThreads {
    private final EventLoopGroup group;
    private final Map<String, EventLoop> homes = new ConcurrentHashMap<>();

    public LunEventLoops(EventLoopGroup group) {
        this.group = group;
    }

    /** Binds a new unit to its event loop; the first unit of a target also makes that loop the target's home. */
    public void assign(String targetName, LogicalUnit unit) {
        EventLoop loop = group.next();
        unit.thread(new EventLoopLunThread(loop));
        homes.putIfAbsent(targetName, loop);
    }

    /** The home; a target logged in to before it has a LUN gets the next loop. */
    @Override
    public Executor homeOf(ExportedTarget target) {
        return homes.computeIfAbsent(target.name(), n -> group.next());
    }
}
