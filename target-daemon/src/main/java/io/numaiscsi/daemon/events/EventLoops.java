package io.numaiscsi.daemon.events;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaiscsi.config.DaemonSettings.EventModel;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's event loop groups for one event model. PER_LUN: an acceptor, a login thread, and one
 * event thread per LUN. CENTRALIZED: a single thread that accepts, logs in and serves everything.
 */
public final class EventLoops implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);

    private final EventLoopGroup acceptor;
    private final EventLoopGroup login;
    private final EventLoopGroup luns;
    private final boolean epoll;

    public EventLoops(EventModel model, int lunCount) {
        this.epoll = Epoll.isAvailable();
        if (!epoll) {
            LOG.warn("native epoll unavailable ({}); using NIO", Epoll.unavailabilityCause().toString());
        }
        if (model == EventModel.CENTRALIZED) {
            acceptor = group(1, "event");
            login = acceptor;
            luns = acceptor;
        } else {
            acceptor = group(1, "acceptor");
            login = group(1, "login");
            luns = group(Math.max(1, lunCount), "lun-event");
        }
        LOG.info("event model {}: {} LUN event thread(s)", model, model == EventModel.CENTRALIZED ? 1 : Math.max(1, lunCount));
    }

    private EventLoopGroup group(int threads, String name) {
        ThreadFactory tf = new DefaultThreadFactory(name, true);
        return new MultiThreadIoEventLoopGroup(threads, tf, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    public EventLoopGroup acceptor() {
        return acceptor;
    }

    public EventLoopGroup login() {
        return login;
    }

    public EventLoopGroup luns() {
        return luns;
    }

    public boolean epoll() {
        return epoll;
    }

    @Override
    public void close() {
        for (EventLoopGroup g : new EventLoopGroup[] {luns, login, acceptor}) {
            if (!g.isShuttingDown()) {
                g.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
    }
}
