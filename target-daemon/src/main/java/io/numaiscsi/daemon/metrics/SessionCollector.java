package io.numaiscsi.daemon.metrics;

import io.numaiscsi.session.SessionInfo;
import io.numaiscsi.session.SessionTable;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.TreeMap;

/**
 * Normal sessions open now by target and initiator, counted from the session table at each scrape: a pair with no
 * session left drops out of the scrape (Prometheus then sees the series end).
 */
final class SessionCollector implements MultiCollector {
    private final SessionTable sessions;

    SessionCollector(SessionTable sessions) {
        this.sessions = sessions;
    }

    @Override
    public MetricSnapshots collect() {
        Map<Labels, Integer> counts = new TreeMap<>();
        for (SessionInfo s : sessions.describe()) {
            if (!s.target().isEmpty()) { // discovery sessions have no target
                counts.merge(Labels.of("target", s.target(), "initiator", s.initiatorName()), 1, Integer::sum);
            }
        }
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder()
                .name("iscsi_target_sessions")
                .help("normal iSCSI sessions open now, by target and initiator");
        counts.forEach((labels, n) -> gauge.dataPoint(
                GaugeDataPointSnapshot.builder().labels(labels).value(n).build()));
        return MetricSnapshots.of(gauge.build());
    }
}
