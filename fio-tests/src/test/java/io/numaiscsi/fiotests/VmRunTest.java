package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/** The parts of {@link VmRun} that read the guest's serial log. */
class VmRunTest {

    static final String SERIAL = """
            [  12.301] [guest 9.12] PASS login
            [  13.002] [guest 9.80] FAIL vpd83-naa (status 1)
            [  13.500] vmtest-like noise: FAILED nothing
            [  20.100] [guest 16.3] ABORT: login after the restart failed
            [  20.101] vmtest: 7 passed, 2 failed
            [  20.200] VM-EXIT-STATUS=1
            """;

    @Test
    void failedChecksAreTheGuestsFailAndAbortLinesInOrder() {
        assertEquals(
                List.of("FAIL vpd83-naa (status 1)", "ABORT: login after the restart failed"),
                VmRun.failedChecks(SERIAL));
        assertEquals(List.of(), VmRun.failedChecks("[ 1.0] [guest 0.5] PASS x\n"));
    }

    @Test
    void verdictLineGivesPassedAndFailed() {
        Matcher m = VmRun.VERDICT.matcher(SERIAL);
        assertTrue(m.find());
        assertEquals("7", m.group(1));
        assertEquals("2", m.group(2));
    }

    @Test
    void succeededNeedsExitZeroSomePassesAndNoFailure() {
        Path dir = Path.of("unused");
        Duration d = Duration.ofSeconds(1);
        assertTrue(new VmRun(dir, 0, 20, 0, d).succeeded());
        assertFalse(new VmRun(dir, 0, 20, 1, d).succeeded(), "a failed check");
        assertFalse(new VmRun(dir, 1, 20, 0, d).succeeded(), "non-zero guest status");
        assertFalse(new VmRun(dir, 0, -1, -1, d).succeeded(), "no verdict line: the script died early");
        assertFalse(new VmRun(dir, 124, 3, 0, d).succeeded(), "timeout");
    }
}
