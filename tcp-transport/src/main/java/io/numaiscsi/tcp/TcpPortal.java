package io.numaiscsi.tcp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.config.Portal;
import io.numaiscsi.session.PeerEventLogs;
import io.numaiscsi.session.SessionServices;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * iSCSI over TCP: listens on the configured portals with Netty's native epoll transport (NIO when epoll
 * is unavailable). Each accepted connection lives on one event loop thread for its whole life.
 */
public final class TcpPortal implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpPortal.class);

    private final EventLoopGroup acceptor;
    private final EventLoopGroup login;
    private final Class<? extends ServerChannel> channelClass;
    private final List<Listener> listeners = new ArrayList<>();
    /** Open connections over every portal of this transport, those still in login included. */
    private final AtomicInteger open = new AtomicInteger();

    /** Connections are accepted on {@code acceptor} and logged in on {@code login}; the event threads take them from there. */
    public TcpPortal(EventLoopGroup acceptor, EventLoopGroup login, Class<? extends ServerChannel> channelClass) {
        this.acceptor = acceptor;
        this.login = login;
        this.channelClass = channelClass;
    }

    /** One listening socket and the connections open through it now. */
    private record Listener(Channel channel, AtomicInteger connections) {}

    /** Binds one portal; throws with the OS's reason if the address cannot be bound, nothing listening then. */
    public InetSocketAddress listen(String host, int port, SessionServices services, ByteBufAllocator alloc)
            throws IOException, InterruptedException {
        AtomicInteger through = new AtomicInteger();
        ServerBootstrap b = new ServerBootstrap()
                .group(acceptor, login)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, 256)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.ALLOCATOR, alloc)
                .childOption(
                        ChannelOption.WRITE_BUFFER_WATER_MARK,
                        waterMark(services.settings().resources()))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        int max = services.settings().resources().maxConnections();
                        if (open.incrementAndGet() > max) {
                            open.decrementAndGet();
                            if (PeerEventLogs.CONNECTION_REFUSALS.permit()) {
                                LOG.warn(
                                        "refusing connection from {}: {} connections open (limits.max-sessions + "
                                                + "limits.max-logins)",
                                        ch.remoteAddress(),
                                        max);
                            }
                            ch.close();
                            return;
                        }
                        through.incrementAndGet();
                        ch.closeFuture().addListener(f -> {
                            open.decrementAndGet();
                            through.decrementAndGet();
                        });
                        ch.pipeline().addLast("iscsi", new TcpConnectionHandler(services, alloc));
                    }
                });
        ChannelFuture bind = b.bind(host, port).await();
        if (!bind.isSuccess()) {
            Throwable cause = bind.cause();
            throw new IOException(
                    "cannot listen on " + new Portal(host, port) + ": "
                            + (cause.getMessage() == null ? "the system refused it" : cause.getMessage()),
                    cause);
        }
        Channel ch = bind.channel();
        synchronized (listeners) {
            listeners.add(new Listener(ch, through));
        }
        InetSocketAddress bound = (InetSocketAddress) ch.localAddress();
        LOG.info("listening on {}:{} (iSCSI/TCP, {})", host, bound.getPort(), channelClass.getSimpleName());
        return bound;
    }

    /** Output queued per connection: above the high mark it reads no new command and starts no READ. */
    private static WriteBufferWaterMark waterMark(LimitsSettings limits) {
        int high = (int) Math.min(Integer.MAX_VALUE, limits.dataInPerConnection());
        return new WriteBufferWaterMark(high / 2, high);
    }

    /**
     * Stops listening on the portal {@link #listen} bound to {@code bound}; the connections accepted there go on.
     * Returns how many are open, or -1 when nothing listens there.
     */
    public int stop(InetSocketAddress bound) {
        Listener found = null;
        synchronized (listeners) {
            for (Listener l : listeners) {
                if (l.channel().localAddress().equals(bound)) {
                    found = l;
                }
            }
            listeners.remove(found);
        }
        if (found == null) {
            return -1;
        }
        found.channel().close().syncUninterruptibly();
        LOG.info(
                "stopped listening on {} ({} connection(s) through it go on)",
                bound,
                found.connections().get());
        return found.connections().get();
    }

    /** Stops listening; the event loop groups belong to the caller. */
    @Override
    public void close() {
        List<Listener> all;
        synchronized (listeners) {
            all = new ArrayList<>(listeners);
        }
        for (Listener l : all) {
            l.channel().close().syncUninterruptibly();
        }
    }
}
