package io.numaiscsi.daemon.events;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.numaiscsi.blockdev.CompletionPolling;

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
 * submitted to are polled on every pass, and while one has I/O in flight the loop keeps polling up to
 * {@code ioPollNanos} whatever its recent waits were (a device read takes longer than a network gap, and the
 * command is waiting for it). Before it blocks it hands the rings to their reapers, so a slow device costs one
 * wake-up and a fast one none.
 */
final class SpinThenBlockStrategy implements SelectStrategy {
    private final long spinNanos;
    private final long ioPollNanos;
    /** The loop thread's, installed on its first pass (Netty makes the strategy on the thread that builds loops). */
    private CompletionPolling io;

    private SingleThreadEventExecutor loop;
    /** System.nanoTime() when this loop last chose to block, 0 while it has not blocked since. */
    private long blockedAt;

    private boolean shortWaits = true;

    SpinThenBlockStrategy(long spinNanos, long ioPollNanos) {
        this.spinNanos = spinNanos;
        this.ioPollNanos = ioPollNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (io == null) {
            io = CompletionPolling.installOnCurrentThread();
        }
        if (blockedAt != 0) {
            shortWaits = System.nanoTime() - blockedAt <= spinNanos;
            blockedAt = 0;
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
            long start = System.nanoTime();
            long now;
            do {
                Thread.onSpinWait();
                if (io.active()) {
                    io.poll();
                    if (!io.active()) {
                        // the last I/O in flight answered: its response went out, and the next command comes a
                        // round trip later, so the spin for it starts now
                        return selectNow.get();
                    }
                }
                ready = selectNow.get();
                if (ready > 0 || (tasks != null && tasks.pendingTasks() > 0)) {
                    return ready;
                }
                now = System.nanoTime();
            } while ((shortWaits && now - start < spinNanos) || (io.active() && now - start < ioPollNanos));
            shortWaits = shortWaits && now - start < spinNanos;
        }
        io.handOff();
        blockedAt = System.nanoTime();
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
