package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What a test of live LUN changes asks a logged-in session: commands to a LUN, REPORT LUNS, unit attentions. */
final class LunChecks {
    static final Duration ANSWER = Duration.ofSeconds(5);
    static final Duration APPLIED = Duration.ofSeconds(30);

    private LunChecks() {}

    static ScsiResult command(TestConnection c, int lun, byte[] cdb, int edtl) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, cdb, edtl, edtl > 0 ? TestConnection.READ_BIT : 0, true));
        return c.awaitStatus(itt, ANSWER);
    }

    static ScsiResult write(TestConnection c, int lun, long lba, byte[] data) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(
                        lun, itt, ScsiCdb.write10(lba, data.length / 512), data.length, TestConnection.WRITE_BIT, true)
                .data(data));
        return c.awaitStatus(itt, ANSWER);
    }

    /** REPORT LUNS as a list of LUN numbers. */
    static List<Integer> reportLuns(TestConnection c) throws IOException {
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

    /** REPORT LUNS until it lists {@code expected} (a reload applies in the background), failing after a while. */
    static List<Integer> awaitLuns(DaemonProcess daemon, TestConnection c, List<Integer> expected) throws Exception {
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

    static void assertUnitAttention(ScsiResult r, int asc, int ascq, String what) {
        assertEquals(ScsiResult.CHECK_CONDITION, r.status(), what + ": " + r);
        assertEquals(ScsiResult.UNIT_ATTENTION, r.senseKey(), what + ": sense key " + r);
        assertEquals(asc, r.asc(), what + ": ASC " + r);
        assertEquals(ascq, r.ascq(), what + ": ASCQ " + r);
    }
}
