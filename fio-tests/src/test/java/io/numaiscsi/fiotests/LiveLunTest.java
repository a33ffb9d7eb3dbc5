package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A LUN added to and removed from a running target (config file rewritten, SIGHUP) while an initiator is logged in:
 * REPORT LUNS follows, the session hears REPORTED LUNS DATA HAS CHANGED (SPC-4 3Fh/0Eh), the removed LUN answers
 * LOGICAL UNIT NOT SUPPORTED, and the session's other LUN keeps its data and its CmdSN/StatSN flow undisturbed.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveLunTest {
    static final long LUN0_BYTES = 16L << 20;

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start("LiveLunTest", DaemonProcess.Setup.fileLun(LUN0_BYTES));
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void aLunAddedAndRemovedWhileAnInitiatorIsLoggedIn() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            byte[] before = ScsiCdb.pattern(4096, 7);
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 0, 100, before).status(), "WRITE to LUN 0");
            assertEquals(List.of(0), LunChecks.reportLuns(c));

            daemon.reconfigure(DaemonProcess.Setup.fileLun(LUN0_BYTES).ramLun(1, 8L << 20));
            LunChecks.awaitLuns(daemon, c, List.of(0, 1));
            LunChecks.assertUnitAttention(
                    LunChecks.command(c, 0, ScsiCdb.testUnitReady(), 0),
                    0x3F,
                    0x0E,
                    "LUN 0 after LUN 1 was added (REPORTED LUNS DATA HAS CHANGED)");
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.command(c, 0, ScsiCdb.testUnitReady(), 0).status(),
                    "the attention is reported once");
            byte[] onNew = ScsiCdb.pattern(8192, 3);
            assertEquals(ScsiResult.GOOD, LunChecks.write(c, 1, 8, onNew).status(), "WRITE to the new LUN 1");
            assertArrayEquals(
                    onNew, LunChecks.command(c, 1, ScsiCdb.read10(8, 16), 8192).data(), "read back from LUN 1");

            daemon.reconfigure(DaemonProcess.Setup.fileLun(LUN0_BYTES));
            LunChecks.awaitLuns(daemon, c, List.of(0));
            ScsiResult gone = LunChecks.command(c, 1, ScsiCdb.read10(8, 16), 8192);
            assertEquals(ScsiResult.CHECK_CONDITION, gone.status(), "READ of the removed LUN 1: " + gone);
            assertEquals(0x5, gone.senseKey(), "ILLEGAL REQUEST: " + gone);
            assertEquals(0x25, gone.asc(), "LOGICAL UNIT NOT SUPPORTED: " + gone);
            LunChecks.assertUnitAttention(
                    LunChecks.command(c, 0, ScsiCdb.testUnitReady(), 0),
                    0x3F,
                    0x0E,
                    "LUN 0 after LUN 1 was removed (REPORTED LUNS DATA HAS CHANGED)");
            assertArrayEquals(
                    before,
                    LunChecks.command(c, 0, ScsiCdb.read10(100, 8), 4096).data(),
                    "LUN 0 kept its data through both changes");
            c.ping();
        }
        assertTrue(daemon.logTail().contains("reload: 1 of 1 change(s) applied"), daemon.logTail());
        TestConnection.assertFreshSessionWorks(daemon);
    }
}
