package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProcStatTest {

    @Test
    void utimePlusStime() {
        // fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String line = "4242 (java) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 30 0 100 0 0";
        assertEquals(1234 + 567, ProcStat.processTicks(line));
    }

    @Test
    void commWithSpacesAndParentheses() {
        String line = "77 (my (odd) proc) R 1 77 77 0 -1 0 5 0 0 0 10 20 0 0 20 0 1 0 100 0 0";
        assertEquals(30, ProcStat.processTicks(line));
    }

    @Test
    void malformedLinesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> ProcStat.processTicks("no parenthesis here"));
        assertThrows(IllegalArgumentException.class, () -> ProcStat.processTicks("1 (x) S 1 2 3"));
    }

    @Test
    void hostBusyAndTotal() {
        String stat = "cpu  100 5 50 1000 20 3 2 1 7 0\ncpu0 50 2 25 500 10 1 1 0 0 0\nintr 0\n";
        // busy = user+nice+system+irq+softirq+steal, total adds idle+iowait; guest (already in user) left out
        assertArrayEquals(new long[] {161, 1181}, ProcStat.hostTicks(stat));
    }

    @Test
    void ownProcessIsReadable() throws Exception {
        long pid = ProcessHandle.current().pid();
        assertTrue(ProcStat.alive(pid));
        assertTrue(ProcStat.processTicks(pid) >= 0);
    }
}
