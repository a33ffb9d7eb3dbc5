package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.iser.IserPortals;
import io.numaiscsi.iser.IserStats;
import io.numaiscsi.iser.IserTouches;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.scsi.CommandCounters;
import io.numaiscsi.session.ConnectionGuards;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.SessionTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Grafana dashboard in docs/grafana queries only metrics the daemon exports (a renamed metric breaks it here). */
class GrafanaDashboardTest {
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "numa-iscsi-target.json");
    private static final Pattern EXPR = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z][a-z0-9_]*");
    private static final Set<String> PROMQL = Set.of("histogram_quantile", "group_left");
    /** Series that exist only while there is something to count (a normal session). */
    private static final Set<String> ONLY_WHEN_PRESENT = Set.of("iscsi_target_sessions");

    @Test
    void everyMetricTheDashboardQueriesIsExported() throws Exception {
        String json = Files.readString(DASHBOARD);
        Set<String> queried = new TreeSet<>();
        Matcher e = EXPR.matcher(json);
        while (e.find()) {
            // label matchers, grouping clauses and $variables are not metric names
            String expr = e.group(1)
                    .replaceAll("\\{[^}]*}", "")
                    .replaceAll("(by|on|group_left) *\\([^)]*\\)", "")
                    .replaceAll("\\[[^]]*]", "");
            Matcher id = IDENTIFIER.matcher(expr);
            while (id.find()) {
                if (id.group().contains("_") && !PROMQL.contains(id.group())) {
                    queried.add(id.group());
                }
            }
        }
        assertTrue(queried.size() > 15, "metric names found in " + DASHBOARD + ": " + queried);

        DaemonMetrics metrics = new DaemonMetrics(
                        new EventThreadRegistry(),
                        new SessionTable(),
                        List::of,
                        PooledByteBufAllocator.DEFAULT.metric())
                .guards(ConnectionGuards.of(LimitsSettings.DEFAULT))
                .luns(() -> List.of(
                        new TargetDaemon.MeasuredLun("iqn.t", 0, DataTouches.singleNode(), new CommandCounters())))
                .iserPortals(() -> List.of(new IserPortals.MeasuredPortal(
                        "10.0.0.1:3260", IserTouches.unmeasured(), () -> IserStats.ZERO)));
        List<String> missing = missing(queried, metrics.scrape());
        for (int i = 0; i < 50 && missing.stream().anyMatch(m -> m.startsWith("jvm_gc_pause")); i++) {
            System.gc(); // GC pause timers appear after the first collection the JVM reports
            Thread.sleep(100);
            missing = missing(queried, metrics.scrape());
        }
        assertTrue(missing.isEmpty(), "queried by the dashboard but not exported: " + missing);
    }

    private static List<String> missing(Set<String> queried, String scrape) {
        List<String> out = new ArrayList<>();
        for (String name : queried) {
            if (!ONLY_WHEN_PRESENT.contains(name)
                    && !Pattern.compile("^" + name + "[{ ]", Pattern.MULTILINE)
                            .matcher(scrape)
                            .find()) {
                out.add(name);
            }
        }
        return out;
    }
}
