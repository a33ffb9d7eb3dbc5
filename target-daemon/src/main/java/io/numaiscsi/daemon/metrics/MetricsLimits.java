package io.numaiscsi.daemon.metrics;

import java.time.Duration;

/**
 * What one HTTP client may hold of the metrics endpoint: time to send a complete request (from its first
 * byte, or from connecting), idle time between a response and the next request on a kept-alive
 * connection, open connections, and the size of the request line, the headers and the body (each).
 */
record MetricsLimits(Duration requestTimeout, Duration idleTimeout, int maxConnections, int maxRequestBytes) {
    static final MetricsLimits DEFAULT = new MetricsLimits(Duration.ofSeconds(5), Duration.ofSeconds(30), 64, 8192);
}
