package io.numaiscsi.daemon.metrics;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /metrics} (Prometheus text), and with a {@link StatusPage} the status page, on an admin address,
 * off the data path: its own event loop thread ({@value #THREAD_NAME}), so scrapes never run on iSCSI event threads,
 * and bounded per {@link MetricsLimits} so slow or hostile clients cannot keep it from other scrapers. The same thread
 * samples the status page's history once a second.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);
    static final String THREAD_NAME = "metrics-http";

    private final EventLoopGroup group;
    private final Channel listener;
    private final AtomicInteger open = new AtomicInteger();

    public MetricsEndpoint(String host, int port, DaemonMetrics metrics) throws IOException {
        this(host, port, metrics::scrape, MetricsLimits.DEFAULT);
    }

    /** {@code /metrics}, and the status page at {@code /}. */
    public MetricsEndpoint(String host, int port, DaemonMetrics metrics, StatusPage status) throws IOException {
        this(host, port, withMetrics(metrics::scrape, status.resources()), status::sample, MetricsLimits.DEFAULT);
    }

    MetricsEndpoint(String host, int port, Supplier<String> scrape, MetricsLimits limits) throws IOException {
        this(host, port, withMetrics(scrape, Map.of()), null, limits);
    }

    /** Serves {@code resources} by path; runs {@code everySecond} (when not null) on the endpoint's thread. */
    MetricsEndpoint(
            String host, int port, Map<String, HttpResource> resources, Runnable everySecond, MetricsLimits limits)
            throws IOException {
        group = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory(THREAD_NAME, true), NioIoHandler.newFactory());
        HttpDecoderConfig decoding = new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxRequestBytes())
                .setMaxHeaderSize(limits.maxRequestBytes())
                .setMaxChunkSize(limits.maxRequestBytes());
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, limits.maxConnections())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (open.incrementAndGet() > limits.maxConnections()) {
                            open.decrementAndGet();
                            // debug only: a flood of these must not flood the log too
                            LOG.debug(
                                    "closing metrics connection from {}: {} open",
                                    ch.remoteAddress(),
                                    limits.maxConnections());
                            ch.close();
                            return;
                        }
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        ch.pipeline()
                                .addLast("deadline", new RequestDeadline(limits.requestTimeout(), limits.idleTimeout()))
                                .addLast("http", new HttpServerCodec(decoding))
                                .addLast("aggregate", new HttpObjectAggregator(limits.maxRequestBytes()))
                                .addLast("metrics", new MetricsHttpHandler(resources));
                    }
                });
        try {
            listener = b.bind(host, port).sync().channel();
        } catch (Exception e) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            throw bindFailure(host, port, e);
        }
        if (everySecond != null) {
            group.scheduleAtFixedRate(() -> runQuietly(everySecond), 0, 1, TimeUnit.SECONDS);
        }
        LOG.info(
                "metrics on http://{}:{}{}{} (requests within {} ms, idle {} ms, {} connections, {} bytes)",
                host,
                port(),
                MetricsHttpHandler.PATH,
                resources.containsKey(StatusPage.PAGE_PATH) ? ", status page on /" : "",
                limits.requestTimeout().toMillis(),
                limits.idleTimeout().toMillis(),
                limits.maxConnections(),
                limits.maxRequestBytes());
    }

    private static Map<String, HttpResource> withMetrics(Supplier<String> scrape, Map<String, HttpResource> others) {
        Map<String, HttpResource> all = new TreeMap<>(others);
        all.put(MetricsHttpHandler.PATH, HttpResource.text(MetricsHttpHandler.CONTENT_TYPE, scrape));
        return Collections.unmodifiableMap(all);
    }

    /** A failure is logged, and the next second runs again (a scheduled task that throws is never run again). */
    private static void runQuietly(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.warn("status sampling failed", e);
        }
    }

    private static IOException bindFailure(String host, int port, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String address = "metrics address " + host + ":" + port;
        if (e instanceof BindException && String.valueOf(e.getMessage()).contains("in use")) {
            return new IOException(address + " is in use", e);
        }
        return new IOException(address + " cannot be bound: " + io.numaiscsi.daemon.Reasons.of(e), e);
    }

    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Stops listening, closes every open connection and ends the endpoint's thread. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
