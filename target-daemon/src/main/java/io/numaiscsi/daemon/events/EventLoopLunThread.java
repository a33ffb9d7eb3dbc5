package io.numaiscsi.daemon.events;

import io.netty.util.concurrent.EventExecutor;
import io.numaiscsi.scsi.LunThread;

/** A logical unit's thread as one of the daemon's event loops. */
record EventLoopLunThread(EventExecutor loop) implements LunThread {

    @Override
    public boolean isCurrent() {
        return loop.inEventLoop();
    }

    @Override
    public void execute(Runnable r) {
        loop.execute(r);
    }

    @Override
    public String toString() {
        return "event loop " + loop;
    }
}
