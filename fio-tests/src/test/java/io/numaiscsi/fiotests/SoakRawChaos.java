package io.numaiscsi.fiotests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak's chaos events that speak raw PDUs ({@link TestConnection}, {@link RawIo}), for the harness in
 * {@code io.numaiscsi.fiotests.soak}. Each returns one line saying what it saw and throws (an {@link AssertionError} or
 * an {@link IOException}) when the target did not behave.
 */
public final class SoakRawChaos {
    static final Duration ANSWER = Duration.ofSeconds(30);
    static final int ABORT_TASK = 1;
    static final int LOGICAL_UNIT_RESET = 5;
    static final int FUNCTION_COMPLETE = 0;
    static final int TASK_DOES_NOT_EXIST = 1;
    static final String INITIATOR = "iqn.2026-11.io.numaiscsi:soak-raw";
    /**
     * The hostile logins' name: the daemon holds back login answers to a name (and an address) with recent failures,
     * so the honest login beside them must not share it.
     */
    static final String HOSTILE_INITIATOR = "iqn.2026-11.io.numaiscsi:soak-hostile";

    private SoakRawChaos() {}

    private static Map<String, String> keys(IscsiTarget target, boolean solicitedWrites) {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(target));
        keys.put("InitiatorName", INITIATOR);
        if (solicitedWrites) {
            keys.put("ImmediateData", "No");
            keys.put("InitialR2T", "Yes");
        }
        return keys;
    }

    /**
     * A session logs in, reads 4 KiB, logs out; a second login with the same ISID (the same session name) does the
     * same. Only reads: the LUN may be under a verifying writer.
     */
    public static String logoutAndLogin(String host, int port, String iqn, int lun) throws IOException {
        IscsiTarget target = new IscsiTarget(host, port, iqn, lun);
        int isid = TestConnection.newIsidQualifier();
        long t0 = System.nanoTime();
        for (int round = 1; round <= 2; round++) {
            try (TestConnection c = TestConnection.loggedIn(target, keys(target, false), isid)) {
                expectGood(RawIo.testUnitReady(c, lun, ANSWER), "TEST UNIT READY, login " + round);
                expectGood(RawIo.pastUnitAttention(() -> RawIo.read(c, lun, 0, 8, ANSWER)), "READ(10), login " + round);
                if (!RawIo.logout(c, ANSWER)) {
                    throw new AssertionError("no Logout Response 'closed successfully' in login " + round + "\n"
                            + RawIo.tail(c.trace()));
                }
            }
        }
        return "logged in, read, logged out twice with one ISID in " + (System.nanoTime() - t0) / 1_000_000 + " ms";
    }

    /**
     * On {@code lun} (no other initiator's data on it): session A's WRITE waits for its Data-Out and is aborted (ABORT
     * TASK: function complete), a finished task's abort is TASK DOES NOT EXIST; session B queues a 1 MiB READ and A
     * resets the LUN (function complete); each session then sees the reset's unit attention once and its next TEST
     * UNIT READY is GOOD.
     */
    public static String taskManagement(String host, int port, String iqn, int lun) throws IOException {
        IscsiTarget target = new IscsiTarget(host, port, iqn, lun);
        try (TestConnection a = TestConnection.loggedIn(target, keys(target, true), TestConnection.newIsidQualifier());
                TestConnection b =
                        TestConnection.loggedIn(target, keys(target, false), TestConnection.newIsidQualifier())) {
            expectGood(RawIo.testUnitReady(a, lun, ANSWER), "A: TEST UNIT READY");
            expectGood(RawIo.testUnitReady(b, lun, ANSWER), "B: TEST UNIT READY");
            int write = a.newItt();
            int writeCmdSn = a.cmdSn();
            a.send(a.scsiCommand(lun, write, ScsiCdb.write10(128, 8), 4096, TestConnection.WRITE_BIT, true));
            TestPdu r2t = RawIo.readFor(a, write, System.nanoTime() + ANSWER.toNanos());
            if (r2t.opcode() != TestPdu.R2T) {
                throw new AssertionError("A: expected an R2T for the WRITE, got " + r2t + "\n" + RawIo.tail(a.trace()));
            }
            expectTmf(
                    a, ABORT_TASK, lun, write, writeCmdSn, FUNCTION_COMPLETE, "ABORT TASK of a WRITE waiting for data");
            expectTmf(a, ABORT_TASK, lun, 0x7fff0000, a.cmdSn() - 1, TASK_DOES_NOT_EXIST, "ABORT TASK of no task");
            int read = b.newItt();
            b.send(b.scsiCommand(
                    lun, read, ScsiCdb.read10(0, 2048), 2048 * RawIo.BLOCK, TestConnection.READ_BIT, true));
            expectTmf(
                    a,
                    LOGICAL_UNIT_RESET,
                    lun,
                    TestPdu.RESERVED_TAG,
                    a.cmdSn(),
                    FUNCTION_COMPLETE,
                    "LOGICAL UNIT RESET");
            expectResetSeen(a, lun, "A");
            expectResetSeen(b, lun, "B");
            return "ABORT TASK of a pending WRITE and of no task, LUN RESET with another session's READ queued; both "
                    + "sessions saw the reset's unit attention and then GOOD";
        }
    }

    private static void expectTmf(
            TestConnection c, int function, int lun, int referencedItt, int refCmdSn, int expected, String what)
            throws IOException {
        int itt = c.newItt();
        c.send(c.taskManagement(function, lun, itt, referencedItt, refCmdSn));
        TestPdu p = RawIo.readFor(c, itt, System.nanoTime() + ANSWER.toNanos());
        if (p.opcode() != TestPdu.TASK_MGMT_RESPONSE || p.byteAt(2) != expected) {
            throw new AssertionError(
                    what + ": expected response " + expected + ", got " + p + "\n" + RawIo.tail(c.trace()));
        }
    }

    /** After a LUN reset: TEST UNIT READY until GOOD, seeing 29/03 (or another unit attention) on the way. */
    private static void expectResetSeen(TestConnection c, int lun, String who) throws IOException {
        for (int i = 0; i < 4; i++) {
            int itt = c.newItt();
            c.send(c.scsiCommand(lun, itt, ScsiCdb.testUnitReady(), 0, 0, true));
            ScsiResult r = c.awaitStatus(itt, ANSWER);
            if (r.status() == ScsiResult.GOOD) {
                return;
            }
            if (r.status() != ScsiResult.CHECK_CONDITION || r.senseKey() != ScsiResult.UNIT_ATTENTION) {
                throw new AssertionError(who + ": TEST UNIT READY after the reset: " + r);
            }
        }
        throw new AssertionError(who + ": still a unit attention after 4 TEST UNIT READYs");
    }

    /**
     * {@code count} connections from {@code from} (another loopback address) at once: a third send 64 bytes of
     * garbage, a third a login to a target that does not exist, a third nothing. Meanwhile a login from 127.0.0.1 to
     * {@code iqn} must work. The daemon must close every one of them within {@code limit}.
     */
    public static String hostileBurst(String host, int port, String iqn, String from, int count, Duration limit)
            throws IOException, InterruptedException {
        IscsiTarget target = new IscsiTarget(host, port, iqn, 0);
        IscsiTarget nowhere = new IscsiTarget(host, port, "iqn.2026-11.io.numaiscsi:no-such-target", 0);
        List<Socket> sockets = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
            byte[] garbage = new byte[64];
            Arrays.fill(garbage, (byte) 0xa5);
            byte[] badLogin;
            try (TestConnection proto = TestConnection.open(target)) {
                Map<String, String> keys = keys(nowhere, false);
                keys.put("InitiatorName", HOSTILE_INITIATOR);
                badLogin = proto.loginRequest(true, keys).toBytes();
            }
            for (int i = 0; i < count; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(from, 0));
                try {
                    s.connect(new InetSocketAddress(host, port), 2000);
                } catch (IOException refused) {
                    s.close();
                    continue;
                }
                sockets.add(s);
                try {
                    OutputStream out = s.getOutputStream();
                    if (i % 3 == 0) {
                        out.write(garbage);
                    } else if (i % 3 == 1) {
                        out.write(badLogin);
                    }
                    out.flush();
                } catch (IOException closedAlready) {
                    // the daemon may close a connection beyond its per-address limit at once
                }
            }
            long honestMs = honestLogin(target);
            long deadline = System.nanoTime() + limit.toNanos();
            int open = stillOpen(sockets);
            while (open > 0 && System.nanoTime() < deadline) {
                Thread.sleep(250);
                open = stillOpen(sockets);
            }
            if (open > 0) {
                throw new AssertionError(open + " of " + sockets.size() + " hostile connections still open "
                        + limit.toSeconds() + " s after the burst");
            }
            return sockets.size() + " connections from " + from + " (garbage, a login to no target, idle), all closed "
                    + "by the daemon within " + (System.nanoTime() - t0) / 1_000_000 + " ms; an honest login + ping "
                    + "meanwhile took " + honestMs + " ms";
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    private static long honestLogin(IscsiTarget target) throws IOException {
        long t0 = System.nanoTime();
        try (TestConnection c =
                TestConnection.loggedIn(target, keys(target, false), TestConnection.newIsidQualifier())) {
            c.ping();
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Sockets the daemon has not closed yet: reads what it sent until EOF, or finds nothing within 10 ms. */
    private static int stillOpen(List<Socket> sockets) throws IOException {
        int open = 0;
        byte[] sink = new byte[4096];
        for (Socket s : sockets) {
            if (s.isClosed()) {
                continue;
            }
            s.setSoTimeout(10);
            try {
                InputStream in = s.getInputStream();
                while (true) {
                    if (in.read(sink) < 0) {
                        s.close();
                        break;
                    }
                }
            } catch (SocketTimeoutException stillThere) {
                open++;
            } catch (IOException reset) {
                s.close();
            }
        }
        return open;
    }

    /**
     * A session from {@code from} with a 4 KiB receive buffer asks for {@code reads} READs of 8 MiB on {@code lun} and
     * reads nothing for {@code hold}; then it drains the socket, which must end (the daemon dropped the connection)
     * within {@code dropLimit} of the start.
     */
    public static String slowReader(
            String host, int port, String iqn, int lun, String from, int reads, Duration hold, Duration dropLimit)
            throws IOException, InterruptedException {
        IscsiTarget target = new IscsiTarget(host, port, iqn, lun);
        long t0 = System.nanoTime();
        int blocks = (8 << 20) / RawIo.BLOCK;
        try (TestConnection c = TestConnection.openFrom(target, from, 4096)) {
            TestPdu rsp = c.attemptLogin(keys(target, false), TestConnection.newIsidQualifier());
            if (rsp == null || rsp.byteAt(36) != 0) {
                throw new AssertionError("slow reader's login refused: " + rsp);
            }
            for (int i = 0; i < reads; i++) {
                c.send(c.scsiCommand(
                        lun,
                        c.newItt(),
                        ScsiCdb.read10((long) i * blocks, blocks),
                        blocks * RawIo.BLOCK,
                        TestConnection.READ_BIT,
                        true));
            }
            Thread.sleep(hold.toMillis());
            long drained = drainUntilClosed(c, t0 + dropLimit.toNanos());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            if (drained < 0) {
                throw new AssertionError("the daemon still served the slow reader " + ms + " ms after its READs ("
                        + reads + " x 8 MiB, never read for " + hold.toSeconds() + " s)");
            }
            return reads + " READs of 8 MiB unread for " + hold.toSeconds() + " s from " + from + ": dropped by the "
                    + "daemon, " + drained + " bytes were queued to it, closed " + ms + " ms after the start";
        }
    }

    /**
     * Reads PDUs as they come, never answering the target's pings, until the target closes the connection: the data
     * bytes read, or -1 when it went silent with the connection open or {@code deadline} passed.
     */
    private static long drainUntilClosed(TestConnection c, long deadline) throws IOException {
        long bytes = 0;
        while (System.nanoTime() < deadline) {
            TestPdu p;
            try {
                p = c.readRaw(Duration.ofMillis(Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            } catch (SocketTimeoutException silent) {
                return -1;
            }
            if (p == null) {
                return bytes;
            }
            bytes += p.data().length;
        }
        return -1;
    }

    /** READ CAPACITY (16) of {@code lun} through a fresh session: the LUN's size in bytes. */
    public static long capacityBytes(String host, int port, String iqn, int lun) throws IOException {
        IscsiTarget target = new IscsiTarget(host, port, iqn, lun);
        try (TestConnection c =
                TestConnection.loggedIn(target, keys(target, false), TestConnection.newIsidQualifier())) {
            ScsiResult r = RawIo.pastUnitAttention(() -> {
                int itt = c.newItt();
                c.send(c.scsiCommand(lun, itt, ScsiCdb.readCapacity16(), 32, TestConnection.READ_BIT, true));
                return c.awaitStatus(itt, ANSWER);
            });
            expectGood(r, "READ CAPACITY (16) of LUN " + lun);
            byte[] d = r.data();
            long lastLba = 0;
            for (int i = 0; i < 8; i++) {
                lastLba = lastLba << 8 | (d[i] & 0xff);
            }
            long blockLength = (d[8] & 0xffL) << 24 | (d[9] & 0xff) << 16 | (d[10] & 0xff) << 8 | (d[11] & 0xff);
            RawIo.logout(c, ANSWER);
            return (lastLba + 1) * blockLength;
        }
    }

    private static void expectGood(ScsiResult r, String what) {
        if (r.status() != ScsiResult.GOOD) {
            throw new AssertionError(what + ": " + r);
        }
    }
}
