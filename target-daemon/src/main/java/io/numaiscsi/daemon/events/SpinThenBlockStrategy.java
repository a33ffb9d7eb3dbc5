package io.numaiscsi.daemon.events;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.numaiscsi.blockdev.CompletionPolling;
import java.util.function.LongSupplier;

/**
 * An epoll event loop's wait: after the loop ran out of work it polls for ready sockets and posted tasks for up to
 * {@code spinNanos} before it blocks in epoll_wait, but only while its waits have been short. With one command in
 * flight the next one arrives a round trip after the response left; a thread that blocked must then be woken,
 * which on a virtual machine costs more than the command. When the loop's waits outgrow the budget (a deep queue
 * whose initiator answers in batches, an idle LUN, a thread starved of its core) a spin would only burn the budget,
 * so the loop blocks at once until a wait that ends within the budget shows short gaps again.
 *
 * <p>Tasks posted from other threads (backing-store completions) are invisible to epoll while the loop is awake:
 * Netty writes its wake-up eventfd only for a loop that sleeps. The spin therefore also watches the loop's task
 * queue, found through Netty's thread-to-executor map on the loop's own thread.
 *
 * <p>The loop's thread reaps its own stores' completions ({@link CompletionPolling}): the io_uring rings its LUNs
 * submitted to are polled on every pass, and while one has I/O in flight the loop keeps polling whatever its recent
 * waits for sockets were (a device read takes longer than a network gap, and the command is waiting for it), as long
 * as its recent waits for I/O say ({@link IoWaitEstimate}, at most {@code ioPollNanos}). Before it blocks it hands
 * the rings to their reapers, so a slow device costs one wake-up and a fast one none.
 */
final class SpinThenBlockStrategy implements SelectStrategy {
    private final long spinNanos;
    private final IoWaitEstimate ioWait;
    /** The loop thread's, installed on its first pass (Netty makes the strategy on the thread that builds loops). */
    private CompletionPolling io;

    private SingleThreadEventExecutor loop;
    /** The clock when this loop last chose to block, 0 while it has not blocked since. */
    private long blockedAt;

    private boolean shortWaits = true;

    /** When the loop began its last wait for I/O it handed to the reapers, 0 when that wait has been counted. */
    private long ioHandedOffFrom;

    private final LongSupplier clock;

    SpinThenBlockStrategy(long spinNanos, long ioPollNanos) {
        this(spinNanos, ioPollNanos, System::nanoTime);
    }

    /** {@code clock}: System.nanoTime, or a test's. */
    SpinThenBlockStrategy(long spinNanos, long ioPollNanos, LongSupplier clock) {
        this.spinNanos = spinNanos;
        this.ioWait = new IoWaitEstimate(ioPollNanos);
        this.clock = clock;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (io == null) {
            io = CompletionPolling.installOnCurrentThread();
        }
        if (blockedAt != 0) {
            long now = clock.getAsLong();
            shortWaits = now - blockedAt <= spinNanos;
            blockedAt = 0;
            if (ioHandedOffFrom != 0) {
                // woken, most likely by the reaper's hand-back of the I/O it waited for
                ioWait.observe(now - ioHandedOffFrom);
                ioHandedOffFrom = 0;
            }
        }
        if (io.active()) {
            io.poll();
        }
        int ready = selectNow.get();
        if (ready > 0 || hasTasks) {
            return ready;
        }
        if (shortWaits || io.active()) {
            SingleThreadEventExecutor tasks = loop();
            long start = clock.getAsLong();
            long ioPollNanos = ioWait.pollNanos();
            long now;
            do {
                Thread.onSpinWait();
                if (io.active()) {
                    io.poll();
                    if (!io.active()) {
                        ioWait.observe(clock.getAsLong() - start);
                        // the last I/O in flight answered: its response went out, and the next command comes a
                        // round trip later, so the spin for it starts now
                        return selectNow.get();
                    }
                }
                ready = selectNow.get();
                if (ready > 0 || (tasks != null && tasks.pendingTasks() > 0)) {
                    return ready;
                }
                now = clock.getAsLong();
            } while ((shortWaits && now - start < spinNanos) || (io.active() && now - start < ioPollNanos));
            shortWaits = shortWaits && now - start < spinNanos;
            if (io.active()) {
                ioHandedOffFrom = start;
            }
        }
        io.handOff();
        blockedAt = clock.getAsLong();
        return SelectStrategy.SELECT;
    }

    private SingleThreadEventExecutor loop() {
        if (loop == null) {
            EventExecutor current = ThreadExecutorMap.currentExecutor();
            if (current instanceof SingleThreadEventExecutor single) {
                loop = single;
            }
        }
        return loop;
    }
}
