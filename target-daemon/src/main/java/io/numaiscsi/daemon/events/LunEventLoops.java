package io.numaiscsi.daemon.events;

import io.netty.channel.EventLoop;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.session.EventThreads;
import io.numaiscsi.session.ExportedTarget;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.ToIntFunction;

/**
 * Gives every logical unit one event loop of its target's home node, round robin over that node's group (sized at
 * start to the LUNs homed there, at most one per core of the node, so each configured LUN has its own up to the
 * node's core count; further LUNs, and LUNs added later, share). A target's connections
 * live on the loop of its first LUN; commands for its other LUNs hop to their loop (same node) through that loop's
 * lock-free queue.
 */
public final class LunEventLoops implements EventThreads {
    private final EventLoops loops;
    private final ToIntFunction<String> homeNode;
    private final Map<String, EventLoop> homes = new ConcurrentHashMap<>();

    public LunEventLoops(EventLoops loops, ToIntFunction<String> homeNode) {
        this.loops = loops;
        this.homeNode = homeNode;
    }

    /** Binds a new unit to an event loop of its target's node; the target's first unit makes that loop its home. */
    public void assign(String targetName, LogicalUnit unit) {
        EventLoop loop = loops.luns(homeNode.applyAsInt(targetName)).next();
        unit.thread(new EventLoopLunThread(loop));
        homes.putIfAbsent(targetName, loop);
    }

    /** The home; a target logged in to before it has a LUN gets the next loop of its node. */
    @Override
    public Executor homeOf(ExportedTarget target) {
        return homes.computeIfAbsent(
                target.name(), n -> loops.luns(homeNode.applyAsInt(n)).next());
    }
}
