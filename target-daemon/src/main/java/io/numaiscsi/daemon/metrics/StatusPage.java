package io.numaiscsi.daemon.metrics;

import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.session.SessionTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The read-only status page on the metrics port: {@value #PAGE_PATH} is a self-contained HTML page from the jar (no
 * outside scripts: the machine may be offline) that polls {@value #JSON_PATH} ({@link StatusJson}) and draws each
 * LUN's IOPS and latency over the last minutes from the daemon's own {@link StatusHistory}, so a page opened late
 * still shows them. {@link #sample} is run once a second by the endpoint's thread.
 */
public final class StatusPage {
    static final String PAGE_PATH = "/";
    static final String JSON_PATH = "/status.json";
    private static final String PAGE_RESOURCE = "status.html";

    private final StatusHistory history;
    private final StatusJson json;
    private final byte[] page;

    /** What the page shows: the targets served now, their LUNs (read at every sample and request) and sessions. */
    public StatusPage(
            Supplier<List<TargetDefinition>> targets, Supplier<List<RegisteredLun>> luns, SessionTable sessions) {
        this.history = new StatusHistory(luns, StatusHistory.DEFAULT_SAMPLES);
        this.json = new StatusJson(targets, luns, sessions, history, System::currentTimeMillis);
        this.page = pageBytes();
    }

    void sample() {
        history.sample(System.currentTimeMillis(), System.nanoTime());
    }

    Map<String, HttpResource> resources() {
        return Map.of(
                PAGE_PATH,
                HttpResource.fixed("text/html; charset=utf-8", page),
                JSON_PATH,
                new HttpResource("application/json", json::render));
    }

    private static byte[] pageBytes() {
        try (InputStream in = StatusPage.class.getResourceAsStream(PAGE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(PAGE_RESOURCE + " missing from the jar next to " + StatusPage.class);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(PAGE_RESOURCE + " cannot be read from the jar", e);
        }
    }
}
