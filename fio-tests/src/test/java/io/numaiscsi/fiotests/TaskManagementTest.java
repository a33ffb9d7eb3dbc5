package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Task Management Function Requests (RFC 7143 11.5/11.6) and their responses: function codes,
 * response codes, the unit attention a LUN reset leaves for every session (SAM-5 / SPC-4 29h/03h).
 * LUN 0 is a file, LUN 1 is RAM; LUN 9 does not exist.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskManagementTest {

    static final Duration ANSWER = Duration.ofSeconds(5);
    static final int ABORT_TASK = 1;
    static final int ABORT_TASK_SET = 2;
    static final int CLEAR_TASK_SET = 4;
    static final int LOGICAL_UNIT_RESET = 5;
    static final int TASK_REASSIGN = 8;
    static final int FUNCTION_COMPLETE = 0;
    static final int TASK_DOES_NOT_EXIST = 1;
    static final int LUN_DOES_NOT_EXIST = 2;
    static final int REASSIGN_NOT_SUPPORTED = 4;
    static final int MISSING_LUN = 9;

    private DaemonProcess daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = DaemonProcess.start(
                "TaskManagementTest", DaemonProcess.Setup.fileLun(16L << 20).ramLun(1, 8L << 20));
    }

    @AfterEach
    void daemonStillServes() throws Exception {
        TestConnection.assertFreshSessionWorks(daemon);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    /** Sends a TMF request and returns its response after checking ITT, flags, StatSN and ExpCmdSN. */
    private TestPdu tmf(TestConnection c, int function, int lun, int referencedItt, int refCmdSn) throws IOException {
        int itt = c.newItt();
        int statSn = c.expStatSn();
        c.send(c.taskManagement(function, lun, itt, referencedItt, refCmdSn));
        TestPdu p = c.read(ANSWER);
        assertNotNull(p, "closed after TMF " + function + "\ntrace: " + c.trace() + "\n" + daemon.logTail());
        assertEquals(
                TestPdu.TASK_MGMT_RESPONSE,
                p.opcode(),
                "answer to TMF " + function + ": " + p + "\ntrace: " + c.trace());
        assertEquals(TestPdu.FINAL, p.flags(), "TMF response flags");
        assertEquals(itt, p.itt(), "TMF response ITT");
        assertEquals(statSn, p.int32(24), "TMF response StatSN");
        assertEquals(c.cmdSn(), p.int32(28), "TMF response ExpCmdSN (the request was immediate)");
        return p;
    }

    private ScsiResult testUnitReady(TestConnection c, int lun) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, ScsiCdb.testUnitReady(), 0, 0, true));
        return c.awaitStatus(itt, ANSWER);
    }

    private static void assertGood(ScsiResult r, String what) {
        assertEquals(ScsiResult.GOOD, r.status(), what + ": " + r);
    }

    private static void assertResetUnitAttention(ScsiResult r, String what) {
        assertEquals(ScsiResult.CHECK_CONDITION, r.status(), what + ": " + r);
        assertEquals(0, r.response(), what + ": iSCSI response");
        assertEquals(ScsiResult.UNIT_ATTENTION, r.senseKey(), what + ": sense key " + r);
        assertEquals(0x29, r.asc(), what + ": ASC " + r);
        assertEquals(0x03, r.ascq(), what + ": ASCQ (BUS DEVICE RESET FUNCTION OCCURRED) " + r);
    }

    @Test
    void abortTaskOfAnUnknownTaskWhoseCmdSnIsPastIsTaskDoesNotExist() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            int cmdSn = c.cmdSn();
            assertGood(testUnitReady(c, 0), "TEST UNIT READY");
            TestPdu p = tmf(c, ABORT_TASK, 0, 0x7777, cmdSn);
            assertEquals(TASK_DOES_NOT_EXIST, p.byteAt(2), "response to ABORT TASK of a finished task");
        }
    }

    @Test
    void lunResetLeavesOneUnitAttentionForEachSession() throws Exception {
        try (TestConnection a = TestConnection.loggedIn(daemon.target());
                TestConnection b = TestConnection.loggedIn(daemon.target())) {
            // a nexus learns of a reset only once it has used the LU
            assertGood(testUnitReady(a, 0), "session A, LUN 0");
            assertGood(testUnitReady(a, 1), "session A, LUN 1");
            assertGood(testUnitReady(b, 0), "session B, LUN 0");
            assertEquals(
                    FUNCTION_COMPLETE,
                    tmf(a, LOGICAL_UNIT_RESET, 0, TestPdu.RESERVED_TAG, a.cmdSn())
                            .byteAt(2),
                    "LOGICAL UNIT RESET response");
            assertResetUnitAttention(testUnitReady(a, 0), "session A after its reset");
            assertGood(testUnitReady(a, 0), "session A, second command");
            assertGood(testUnitReady(a, 1), "session A, LUN 1 was not reset");
            assertResetUnitAttention(testUnitReady(b, 0), "session B after A's reset");
            assertGood(testUnitReady(b, 0), "session B, second command");
        }
    }

    @Test
    void taskManagementForAMissingLunIsLunDoesNotExist() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            for (int function : new int[] {LOGICAL_UNIT_RESET, ABORT_TASK_SET, CLEAR_TASK_SET}) {
                assertEquals(
                        LUN_DOES_NOT_EXIST,
                        tmf(c, function, MISSING_LUN, TestPdu.RESERVED_TAG, c.cmdSn())
                                .byteAt(2),
                        "TMF " + function + " to LUN " + MISSING_LUN);
            }
            c.ping();
        }
    }

    @Test
    void taskReassignIsNotSupported() throws Exception {
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            int cmdSn = c.cmdSn();
            assertGood(testUnitReady(c, 0), "TEST UNIT READY");
            assertEquals(
                    REASSIGN_NOT_SUPPORTED,
                    tmf(c, TASK_REASSIGN, 0, 0x1234, cmdSn).byteAt(2),
                    "TASK REASSIGN");
        }
    }

    @Test
    void abortTaskSetAndClearTaskSetEndAPendingWriteWithoutStatus() throws Exception {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target()));
        keys.put("ImmediateData", "No");
        keys.put("InitialR2T", "Yes");
        try (TestConnection c = TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier())) {
            int lastAborted = 0;
            for (int function : new int[] {ABORT_TASK_SET, CLEAR_TASK_SET}) {
                int write = c.newItt();
                lastAborted = write;
                c.send(c.scsiCommand(0, write, ScsiCdb.write10(64, 1), 512, TestConnection.WRITE_BIT, true));
                TestPdu r2t = c.read(ANSWER);
                assertNotNull(r2t);
                assertEquals(TestPdu.R2T, r2t.opcode(), r2t + "\ntrace: " + c.trace());
                assertEquals(write, r2t.itt());
                assertEquals(
                        FUNCTION_COMPLETE,
                        tmf(c, function, 0, TestPdu.RESERVED_TAG, c.cmdSn()).byteAt(2),
                        "TMF " + function);
                ScsiResult after = testUnitReady(c, 0);
                assertGood(after, "TEST UNIT READY after TMF " + function);
                assertTrue(after.others().isEmpty(), "a status for the aborted WRITE: " + after.others());
            }
            // the aborted task's ITT is free again: reusing it is no "task in progress" Reject
            c.send(c.scsiCommand(0, lastAborted, ScsiCdb.testUnitReady(), 0, 0, true));
            assertGood(c.awaitStatus(lastAborted, ANSWER), "TEST UNIT READY reusing the aborted ITT");
        }
    }
}
