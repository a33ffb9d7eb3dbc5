package io.numaiscsi.daemon.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves {@code GET /metrics} (Prometheus text) on an admin address, off the data path. */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);
    private final HttpServer server;

    public MetricsEndpoint(String host, int port, DaemonMetrics metrics) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 8);
        server.createContext("/metrics", exchange -> respond(exchange, metrics.scrape()));
        server.start();
        LOG.info("metrics on http://{}:{}/metrics", host, server.getAddress().getPort());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
