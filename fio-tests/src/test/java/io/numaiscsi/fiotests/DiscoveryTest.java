package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** SendTargets discovery and LUN listing with {@code iscsi-ls -s}, then a clean SIGTERM shutdown. */
@Tag("it")
class DiscoveryTest {

    static final long LUN_BYTES = 64L << 20;
    static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void listsTargetAndLunWithSize() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("DiscoveryTest", LUN_BYTES)) {
            IscsiTarget t = daemon.target();
            ToolRun run = ToolRun.run(
                    DaemonProcess.logDir().resolve("iscsi-ls.log"), LIMIT, List.of("iscsi-ls", "-s", t.portalUrl()));
            String out = run.output();
            String context = "\n" + run.describe(20) + "\n" + daemon.logTail();
            assertFalse(run.timedOut(), "iscsi-ls hung" + context);
            assertEquals(0, run.exitCode(), "iscsi-ls exit code" + context);
            assertTrue(
                    out.lines()
                            .anyMatch(l -> l.startsWith("Target:" + t.iqn() + " Portal:" + t.host() + ":" + t.port())),
                    "target and portal listed" + context);
            String lunLine = IscsiLs.diskLunLine(t.lun(), daemon.lunBytes(), 512);
            assertTrue(out.lines().anyMatch(lunLine::equals), "expected line '" + lunLine + "'" + context);
            daemon.assertAlive();
            if (!daemon.external()) {
                assertEquals(0, daemon.stop(), "exit code after SIGTERM (clean shutdown)\n" + daemon.logTail());
            }
        }
    }
}
