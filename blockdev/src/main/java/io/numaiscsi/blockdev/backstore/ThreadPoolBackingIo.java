package io.numaiscsi.blockdev.backstore;

import io.numaiscsi.blockdev.IoStatus;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Today's engine: each request runs as blocking FileChannel calls on a thread of the injected pool. */
final class ThreadPoolBackingIo implements BackingIo {
    private final Executor executor;

    ThreadPoolBackingIo(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void execute(IoRequest r) {
        try {
            executor.execute(r);
        } catch (RejectedExecutionException e) {
            r.device.finish(r, IoStatus.UNAVAILABLE);
        }
    }

    @Override
    public void close() {
        // the pool is the daemon's, shared by the node's devices
    }

    @Override
    public String name() {
        return "threads";
    }
}
