package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A daemon started with SIGHUP ignored ({@code nohup}, as an admin who starts it by hand may) still reloads its
 * config on SIGHUP: the JVM alone would leave the ignored signal alone and every reload would be lost in silence.
 */
@Tag("it")
class ReloadUnderNohupTest {
    private static final String IQN = "iqn.2026-11.io.numaiscsi:nohup";

    private static String targets(int luns) {
        StringBuilder y = new StringBuilder("targets:\n  - name: " + IQN + "\n    luns:\n");
        for (int i = 0; i < luns; i++) {
            y.append("      - {id: ").append(i).append(", backing: ram, size: 8M, block-size: 512}\n");
        }
        return y.toString();
    }

    @Test
    void aDaemonStartedUnderNohupReloadsOnSigHup() throws Exception {
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(List.of("nohup"), "ReloadUnderNohupTest", targets(1))) {
            daemon.reload(targets(2)); // fails unless the daemon logs the reload applied within 30 s
            try (TestConnection c = TestConnection.loggedIn(daemon.target(IQN))) {
                assertEquals(List.of(0, 1), LunChecks.reportLuns(c));
            }
            assertTrue(daemon.logLines("SIGHUP was ignored").isEmpty(), "the daemon took SIGHUP back: " + daemon.log());
        }
    }
}
