package io.numaiscsi.daemon.events;

import io.netty.util.concurrent.EventExecutor;
import io.numaiscsi.scsi.LunThread;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A logical unit's thread as one of the daemon's event loops. */
record EventLoopLunThread(EventExecutor loop) implements LunThread {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoopLunThread.class);

    @Override
    public boolean isCurrent() {
        return loop.inEventLoop();
    }

    @Override
    public void execute(Runnable r) {
        try {
            loop.execute(r);
        } catch (RejectedExecutionException e) {
            // the daemon is stopping: its connections are closed and its stores flushed, so what is left to run here
            // (a late completion of a command whose connection is gone) has nobody to answer
            LOG.debug("{} has stopped: a late task dropped", loop);
        }
    }

    @Override
    public String toString() {
        return "event loop " + loop;
    }
}
