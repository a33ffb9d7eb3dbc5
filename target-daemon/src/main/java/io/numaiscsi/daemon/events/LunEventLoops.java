package io.numaiscsi.daemon.events;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.numaiscsi.daemon.session.EventThreads;
import io.numaiscsi.daemon.session.ExportedTarget;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Assigns one event loop to every LUN, round robin over a group sized to the LUN count (so with
 * enough threads each LUN has its own). A target's home is its lowest LUN's loop: its connections
 * live there and commands for its other LUNs hop to their loop through that loop's lock-free queue.
 */
public final class LunEventLoops implements EventThreads {
    private final Map<String, EventLoop[]> byTarget = new HashMap<>();
    private final Map<String, EventLoop> homes = new HashMap<>();

    public LunEventLoops(EventLoopGroup group, List<ExportedTarget> targets) {
        for (ExportedTarget t : targets) {
            int maxLun = 0;
            int firstLun = Integer.MAX_VALUE;
            for (var unit : t.scsi().units()) {
                maxLun = Math.max(maxLun, unit.lun());
                firstLun = Math.min(firstLun, unit.lun());
            }
            EventLoop[] loops = new EventLoop[maxLun + 1];
            for (var unit : t.scsi().units()) {
                loops[unit.lun()] = group.next();
            }
            byTarget.put(t.name(), loops);
            homes.put(t.name(), loops[firstLun]);
        }
    }

    @Override
    public Executor homeOf(ExportedTarget target) {
        return homes.get(target.name());
    }

    @Override
    public Executor lunThread(ExportedTarget target, int lun) {
        EventLoop[] loops = byTarget.get(target.name());
        return loops == null || lun < 0 || lun >= loops.length ? null : loops[lun];
    }
}
