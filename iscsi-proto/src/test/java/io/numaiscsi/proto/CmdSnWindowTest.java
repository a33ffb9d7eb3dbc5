package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CmdSnWindowTest {
    @Test
    void verdictTable() {
        CmdSnWindow w = new CmdSnWindow(4);
        w.start(100);
        assertEquals(100, w.expCmdSN());
        assertEquals(103, w.maxCmdSN());
        // cmdSN, immediate, verdict
        Object[][] cases = {
            {100, false, CmdSnVerdict.ACCEPT},
            {101, false, CmdSnVerdict.QUEUE},
            {103, false, CmdSnVerdict.QUEUE},
            {104, false, CmdSnVerdict.DISCARD},
            {99, false, CmdSnVerdict.DISCARD},
            {100, true, CmdSnVerdict.IMMEDIATE},
            {5000, true, CmdSnVerdict.IMMEDIATE},
        };
        for (Object[] c : cases) {
            assertEquals(c[2], w.check((Integer) c[0], (Boolean) c[1]), Arrays.toString(c));
        }
    }

    @Test
    void outstandingTasksNarrowTheWindow() {
        CmdSnWindow w = new CmdSnWindow(2);
        w.start(1);
        assertEquals(CmdSnVerdict.ACCEPT, w.check(1, false));
        w.accepted();
        w.taskStarted();
        assertEquals(2, w.expCmdSN());
        assertEquals(2, w.maxCmdSN()); // 2 + 2 - 1 - 1
        assertEquals(CmdSnVerdict.ACCEPT, w.check(2, false));
        w.accepted();
        w.taskStarted();
        assertEquals(3, w.expCmdSN());
        assertEquals(2, w.maxCmdSN()); // closed: MaxCmdSN = ExpCmdSN - 1
        assertEquals(CmdSnVerdict.DISCARD, w.check(3, false));
        assertEquals(CmdSnVerdict.IMMEDIATE, w.check(3, true));
        w.taskFinished();
        assertEquals(3, w.maxCmdSN());
        assertEquals(CmdSnVerdict.ACCEPT, w.check(3, false));
        w.taskFinished();
        assertEquals(4, w.maxCmdSN());
        assertEquals(0, w.outstanding());
    }

    @Test
    void neverBelowExpMinusOne() {
        CmdSnWindow w = new CmdSnWindow(1);
        w.start(7);
        w.taskStarted();
        w.taskStarted(); // e.g. immediate commands beyond the depth
        assertEquals(6, w.maxCmdSN());
    }

    @Test
    void wrapsAround() {
        CmdSnWindow w = new CmdSnWindow(8);
        w.start(0xfffffffe);
        assertEquals(5, w.maxCmdSN());
        assertEquals(CmdSnVerdict.QUEUE, w.check(0, false));
        assertEquals(CmdSnVerdict.QUEUE, w.check(5, false));
        assertEquals(CmdSnVerdict.DISCARD, w.check(6, false));
        assertEquals(CmdSnVerdict.DISCARD, w.check(0xfffffffd, false));
        w.accepted();
        w.accepted();
        assertEquals(0, w.expCmdSN());
        assertEquals(CmdSnVerdict.ACCEPT, w.check(0, false));
    }

    @Test
    void misuseIsABug() {
        assertThrows(IllegalArgumentException.class, () -> new CmdSnWindow(0));
        CmdSnWindow w = new CmdSnWindow(1);
        assertThrows(IllegalStateException.class, w::taskFinished);
    }
}
