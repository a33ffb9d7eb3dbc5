package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
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
    static final Duration ANSWER = Duration.ofSeconds(5);
    static final Duration APPLIED = Duration.ofSeconds(30);
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

    private static ScsiResult command(TestConnection c, int lun, byte[] cdb, int edtl) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, cdb, edtl, edtl > 0 ? TestConnection.READ_BIT : 0, true));
        return c.awaitStatus(itt, ANSWER);
    }

    private static ScsiResult write(TestConnection c, int lun, long lba, byte[] data) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, ScsiCdb.write10(lba, data.length / 512), data.length, TestConnection.WRITE_BIT, true)
                .data(data));
        return c.awaitStatus(itt, ANSWER);
    }

    /** REPORT LUNS as a list of LUN numbers; a unit attention on the way is taken and retried (it is reported once). */
    private static List<Integer> reportLuns(TestConnection c) throws IOException {
        byte[] cdb = {(byte) 0xA0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0};
        ScsiResult r = command(c, 0, cdb, 4096);
        assertEquals(ScsiResult.GOOD, r.status(), "REPORT LUNS: " + r);
        byte[] d = r.data();
        int length = (d[0] & 0xff) << 24 | (d[1] & 0xff) << 16 | (d[2] & 0xff) << 8 | (d[3] & 0xff);
        List<Integer> luns = new ArrayList<>();
        for (int at = 8; at < 8 + length; at += 8) {
            luns.add((d[at] & 0x3f) << 8 | (d[at + 1] & 0xff));
        }
        return luns;
    }

    private List<Integer> awaitLuns(TestConnection c, List<Integer> expected) throws Exception {
        long deadline = System.nanoTime() + APPLIED.toNanos();
        List<Integer> now = reportLuns(c);
        while (!now.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            now = reportLuns(c);
        }
        if (!now.equals(expected)) {
            fail("REPORT LUNS still " + now + ", expected " + expected + "\n" + daemon.logTail());
        }
        return now;
    }

    private static void assertUnitAttention(ScsiResult r, int asc, int ascq, String what) {
        assertEquals(ScsiResult.CHECK_CONDITION, r.status(), what + ": " + r);
        assertEquals(ScsiResult.UNIT_ATTENTION, r.senseKey(), what + ": sense key " + r);
        assertEquals(asc, r.asc(), what + ": ASC " + r);
        assertEquals(ascq, r.ascq(), what + ": ASCQ " + r);
    }

    @Test
    void aLunAddedAndRemovedWhileAnInitiatorIsLoggedIn() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            byte[] before = ScsiCdb.pattern(4096, 7);
            assertEquals(ScsiResult.GOOD, write(c, 0, 100, before).status(), "WRITE to LUN 0");
            assertEquals(List.of(0), reportLuns(c));

            daemon.reconfigure(DaemonProcess.Setup.fileLun(LUN0_BYTES).ramLun(1, 8L << 20));
            awaitLuns(c, List.of(0, 1));
            assertUnitAttention(command(c, 0, ScsiCdb.testUnitReady(), 0), 0x3F, 0x0E,
                    "LUN 0 after LUN 1 was added (REPORTED LUNS DATA HAS CHANGED)");
            assertEquals(ScsiResult.GOOD, command(c, 0, ScsiCdb.testUnitReady(), 0).status(), "the attention is reported once");
            byte[] onNew = ScsiCdb.pattern(8192, 3);
            assertEquals(ScsiResult.GOOD, write(c, 1, 8, onNew).status(), "WRITE to the new LUN 1");
            assertArrayEquals(onNew, command(c, 1, ScsiCdb.read10(8, 16), 8192).data(), "read back from LUN 1");

            daemon.reconfigure(DaemonProcess.Setup.fileLun(LUN0_BYTES));
            awaitLuns(c, List.of(0));
            ScsiResult gone = command(c, 1, ScsiCdb.read10(8, 16), 8192);
            assertEquals(ScsiResult.CHECK_CONDITION, gone.status(), "READ of the removed LUN 1: " + gone);
            assertEquals(0x5, gone.senseKey(), "ILLEGAL REQUEST: " + gone);
            assertEquals(0x25, gone.asc(), "LOGICAL UNIT NOT SUPPORTED: " + gone);
            assertUnitAttention(command(c, 0, ScsiCdb.testUnitReady(), 0), 0x3F, 0x0E,
                    "LUN 0 after LUN 1 was removed (REPORTED LUNS DATA HAS CHANGED)");
            assertArrayEquals(before, command(c, 0, ScsiCdb.read10(100, 8), 4096).data(),
                    "LUN 0 kept its data through both changes");
            c.ping();
        }
        assertTrue(daemon.logTail().contains("reload: 1 of 1 change(s) applied"), daemon.logTail());
        TestConnection.assertFreshSessionWorks(daemon);
    }
}
