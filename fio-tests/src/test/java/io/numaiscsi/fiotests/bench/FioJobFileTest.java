package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FioJobFileTest {
    private static final Target TGT = new Target("tgtd", "127.0.0.1", 13261, "iqn.2026-11.test:tgt", List.of(1, 2), 1);

    @Test
    void singleLunCell() {
        String job = FioJobFile.render(Workload.parseLine("rr4k randread 4k 32 2 1"), TGT, 20);
        List<String> lines = job.lines().toList();
        for (String want : List.of(
                "ioengine=libiscsi",
                "rw=randread",
                "bs=4096",
                "iodepth=32",
                "numjobs=2",
                "time_based=1",
                "runtime=20",
                "group_reporting=1",
                "[lun0]",
                "filename=iscsi\\://127.0.0.1\\:13261/iqn.2026-11.test\\:tgt/1",
                "initiator=iqn.2026-11.io.numaiscsi:bench-ini0")) {
            assertTrue(lines.contains(want), want + " missing in\n" + job);
        }
        assertFalse(job.contains("[lun1]"));
        assertFalse(job.contains("ramp_time"), "CPU per I/O needs every I/O counted");
    }

    @Test
    void twoLunCellUsesTwoInitiatorsOnTwoLuns() {
        String job = FioJobFile.render(Workload.parseLine("rr4k randread 4k 32 1 2"), TGT, 5);
        int lun1 = job.indexOf("[lun1]");
        String first = job.substring(job.indexOf("[lun0]"), lun1);
        String second = job.substring(lun1);
        assertTrue(first.contains("tgt/1\n") && first.contains("bench-ini0\n"), first);
        assertTrue(second.contains("tgt/2\n") && second.contains("bench-ini1\n"), second);
        assertEquals(2, job.lines().filter(l -> l.startsWith("filename=")).count());
    }

    @Test
    void tooFewLunsIsAnError() {
        Target one = new Target("x", "127.0.0.1", 1, "iqn.2026-11.a:b", List.of(0), 1);
        assertThrows(
                IllegalArgumentException.class,
                () -> FioJobFile.render(Workload.parseLine("a randread 4k 1 1 2"), one, 5));
    }
}
