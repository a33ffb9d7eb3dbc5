package io.numaiscsi.proto.transport;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/** A connection's thread as a Netty event loop. */
public record NettyConnectionExecutor(EventExecutor loop) implements ConnectionExecutor {

    @Override
    public boolean inThread() {
        return loop.inEventLoop();
    }

    @Override
    public void execute(Runnable task) {
        loop.execute(task);
    }

    @Override
    public void schedule(Runnable task, long delay, TimeUnit unit) {
        loop.schedule(task, delay, unit);
    }
}
