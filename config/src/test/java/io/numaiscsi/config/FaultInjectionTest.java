package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The test/debug {@code inject-*} LUN keys. */
class FaultInjectionTest {

    private static String file(String lunKeys) {
        return "daemon:\n  data-dir: /srv/iscsi\ntargets:\n  - name: iqn.2026-11.io.numaiscsi:disk0\n    luns:\n"
                + "      - id: 0\n        path: lun0.img\n        size: 64M\n" + lunKeys;
    }

    private static LunDefinition lun0(String lunKeys) throws ConfigException {
        return ConfigLoader.parse(file(lunKeys), "t.yaml").targets().get(0).lun(0);
    }

    @Test
    void absentKeysInjectNothing() throws ConfigException {
        LunDefinition lun = lun0("");
        assertEquals(FaultInjection.NONE, lun.faults());
        assertFalse(lun.faults().active());
    }

    @Test
    void allKeys() throws ConfigException {
        LunDefinition lun = lun0("        inject-latency: 200ms\n        inject-medium-error-every: 7\n"
                + "        inject-no-space-after: 4M\n");
        assertEquals(new FaultInjection(Duration.ofMillis(200), 7, 4L << 20), lun.faults());
        assertTrue(lun.faults().active());
    }

    @Test
    void noSpaceAfterZeroFailsEveryWrite() throws ConfigException {
        assertEquals(0, lun0("        inject-no-space-after: 0\n").faults().noSpaceAfterBytes());
    }

    @Test
    void moveOfTheDataDirKeepsTheFaults() throws ConfigException {
        TargetConfig c = ConfigLoader.parse(file("        inject-latency: 2s\n"), "t.yaml");
        LunDefinition moved =
                c.withDataDir(Path.of("/elsewhere")).targets().get(0).lun(0);
        assertEquals(Path.of("/elsewhere/lun0.img"), moved.path());
        assertEquals(Duration.ofSeconds(2), moved.faults().latency());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "inject-latency: 2x | 9 | targets[0].luns[0].inject-latency",
                "inject-latency: 61s | 9 | targets[0].luns[0].inject-latency",
                "inject-medium-error-every: -1 | 9 | targets[0].luns[0].inject-medium-error-every",
                "inject-no-space-after: lots | 9 | targets[0].luns[0].inject-no-space-after",
                "inject-latencies: 1s | 9 | targets[0].luns[0].inject-latencies"
            })
    void badValuesNameLineAndKey(String line, int lineNumber, String path) {
        ConfigException e = assertThrows(ConfigException.class, () -> lun0("        " + line + "\n"));
        assertTrue(e.getMessage().startsWith("t.yaml:" + lineNumber + ": " + path + ":"), e.getMessage());
    }
}
