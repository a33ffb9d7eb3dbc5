package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * MODE SELECT with SP=1 (as {@code sdparm --save} sends it) keeps the changed parameters across restarts: the caching
 * page's WCE turned off and saved is off again after a clean restart and after a SIGKILL right after GOOD, MODE SENSE
 * reports it as the saved value with PS set, and removing the LUN removes the file.
 */
@Tag("it")
class SavedModePagesTest {
    private static final Duration ANSWER = Duration.ofSeconds(10);
    /** A RAM LUN beside LUN 0 (a target keeps at least one LUN, so this one can be removed). */
    private static final int LUN = 1;

    /** MODE SELECT(6), PF=1 and SP as given, with the caching page's WCE as given. */
    private static ScsiResult selectCaching(TestConnection c, boolean wce, boolean save) throws IOException {
        byte[] list = new byte[24];
        list[4] = 0x08;
        list[5] = 0x12;
        list[6] = (byte) (wce ? 0x04 : 0);
        byte[] cdb = {0x15, (byte) (save ? 0x11 : 0x10), 0, 0, 24, 0};
        return RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(LUN, itt, cdb, 24, TestConnection.WRITE_BIT, true)
                    .data(list));
            return c.awaitStatus(itt, ANSWER);
        });
    }

    /** Byte 0 (PS, page code) and byte 2 (WCE) of the caching page, page control 0 (current) or 3 (saved). */
    private static int[] caching(TestConnection c, int pageControl) throws IOException {
        byte[] cdb = {0x1A, 0x08, (byte) (pageControl << 6 | 0x08), 0, (byte) 0xFF, 0};
        ScsiResult r = RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(LUN, itt, cdb, 255, TestConnection.READ_BIT, true));
            return c.awaitStatus(itt, ANSWER);
        });
        assertEquals(ScsiResult.GOOD, r.status(), "MODE SENSE(6) caching page, PC " + pageControl + ": " + r);
        int at = 4 + (r.data()[3] & 0xFF);
        return new int[] {r.data()[at] & 0xFF, r.data()[at + 2] & 0xFF};
    }

    @Test
    void aSavedWriteCacheSettingSurvivesRestartsAndKill() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "restarts its own daemon");
        try (RestartableDaemon daemon = RestartableDaemon.start(
                "SavedModePagesTest", DaemonProcess.Setup.fileLun(64L << 20).ramLun(LUN, 16L << 20))) {
            Path file = daemon.dataDir()
                    .resolve("mode-pages")
                    .resolve(daemon.target().iqn().toLowerCase())
                    .resolve("lun-" + LUN + ".json");
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                assertEquals(0x88, caching(c, 0)[0], "PS: the caching page can be saved");
                assertEquals(0x04, caching(c, 0)[1], "WCE on by default");
                assertEquals(ScsiResult.GOOD, selectCaching(c, false, false).status(), "WCE off, not saved");
                assertFalse(Files.exists(file), "SP=0 saves nothing");
                assertEquals(0x04, caching(c, 3)[1], "saved: still on");
                assertEquals(ScsiResult.GOOD, selectCaching(c, false, true).status(), "WCE off and saved");
                assertTrue(Files.exists(file), file + " written");
                assertEquals(0, caching(c, 3)[1], "saved: off");
            }
            assertEquals(0, daemon.restart(), "clean stop");
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                assertEquals(0, caching(c, 0)[1], "WCE off after the restart");
                assertEquals(ScsiResult.GOOD, selectCaching(c, true, true).status(), "WCE on and saved");
            }
            assertEquals(137, daemon.killAndRestart(), "SIGKILL right after the GOOD");
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                assertEquals(0x04, caching(c, 0)[1], "WCE on after the SIGKILL: the save was durable before GOOD");
            }
            new AdminCliRun("SavedModePagesTest", daemon.dataDir().resolve("admin.sock"))
                    .ok("lun-remove", daemon.target().iqn(), "--id", Integer.toString(LUN));
            assertFalse(Files.exists(file), "removing the LUN removes its saved parameters");
            daemon.assertAlive();
        }
    }
}
