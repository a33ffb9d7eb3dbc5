package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import java.util.function.LongSupplier;

/**
 * Where the time of one connection's commands went (LUN queue, execution, completion queue) and the bytes they moved,
 * on the statistics of the event thread that answers them. On the connection's thread.
 */
final class CommandStages {
    private final EventThreadRegistry threadStats;
    private final LongSupplier nanoClock;
    private EventThreadStats stats;

    CommandStages(EventThreadRegistry threadStats, LongSupplier nanoClock) {
        this.threadStats = threadStats;
        this.nanoClock = nanoClock;
    }

    /** Records {@code cmd}'s stages and bytes on the current event thread's statistics, as it is answered. */
    void record(IscsiCommand cmd) {
        EventThreadStats s = stats;
        if (s == null || s.thread() != Thread.currentThread()) {
            s = stats = threadStats.current(); // first command on this thread, or the connection moved
        }
        long sentAt = nanoClock.getAsLong();
        s.stage(EventThreadStats.Stage.LUN_QUEUE, cmd.startedAt - cmd.readyAt);
        s.stage(EventThreadStats.Stage.EXECUTE, cmd.completedAt - cmd.startedAt);
        s.stage(EventThreadStats.Stage.COMPLETION_QUEUE, sentAt - cmd.completedAt);
        ByteBuf dataIn = cmd.task.dataIn();
        s.completed(cmd.scsiDataLength + (dataIn == null ? 0 : Math.min(dataIn.readableBytes(), cmd.expectedLength)));
    }
}
