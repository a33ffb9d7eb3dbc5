package io.numaiscsi.daemon.events;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * An event loop's wait: polls for ready sockets without blocking for up to {@code spinNanos} after the loop ran
 * out of work, then blocks in epoll_wait. With one command in flight the next one arrives a round trip after the
 * response left; a thread that blocked must then be woken, which on a virtual machine costs more than the command.
 * An idle loop spins once for {@code spinNanos} and then sleeps as before.
 */
final class SpinThenBlockStrategy implements SelectStrategy {
    private final long spinNanos;

    SpinThenBlockStrategy(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        if (ready > 0 || hasTasks) {
            return ready;
        }
        long deadline = System.nanoTime() + spinNanos;
        while (System.nanoTime() < deadline) {
            Thread.onSpinWait();
            ready = selectNow.get();
            if (ready > 0) {
                return ready;
            }
        }
        return SelectStrategy.SELECT;
    }
}
