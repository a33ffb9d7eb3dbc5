package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.opentest4j.AssertionFailedError;

/**
 * One raw TCP connection to the target, speaking just enough iSCSI for the malformed-PDU tests:
 * a normal-session login, NOP-Out pings, and reading PDUs with a time limit. Every PDU seen is
 * kept in {@link #trace()} for failure messages.
 */
final class TestConnection implements AutoCloseable {

    /** SCSI Command flags R and W. */
    static final int READ_BIT = 0x40;

    static final int WRITE_BIT = 0x20;
    static final String INITIATOR_NAME = "iqn.2026-11.io.numaiscsi:raw-pdu-test";
    static final Duration REPLY_TIMEOUT = Duration.ofSeconds(5);
    /** Keys a target declares about itself: never answered. */
    private static final Set<String> TARGET_DECLARATIONS =
            Set.of("MaxRecvDataSegmentLength", "TargetAlias", "TargetAddress", "TargetPortalGroupTag");

    private static final AtomicInteger ISID_QUALIFIER = new AtomicInteger((int) (System.nanoTime() & 0xffff));

    /** What the target did with something it should not accept. */
    enum Outcome {
        REJECT,
        LOGIN_REJECT,
        CLOSED,
        SILENT,
        OTHER_PDU,
        ANSWERED
    }

    private final IscsiTarget target;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final List<String> trace = new ArrayList<>();
    private int nextItt = 1;
    private int cmdSn = 1;
    private int expStatSn;
    private int targetMaxRecvDataSegmentLength = 8192;
    private boolean headerDigest;
    private boolean dataDigest;
    private final Map<String, String> negotiated = new LinkedHashMap<>();
    private TestPdu loginResponse;
    private TestPdu lastReceived;

    private TestConnection(IscsiTarget target, Socket socket) throws IOException {
        this.target = target;
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static TestConnection open(IscsiTarget target) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(target.host(), target.port()), 5000);
        return new TestConnection(target, s);
    }

    /**
     * A connection from another loopback address (e.g. 127.0.0.2), so a test can play a second host; a receive
     * buffer size > 0 is set before connecting (a small one plays a peer that reads slowly or not at all).
     */
    static TestConnection openFrom(IscsiTarget target, String localHost, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.bind(new InetSocketAddress(localHost, 0));
        s.connect(new InetSocketAddress(target.host(), target.port()), 5000);
        return new TestConnection(target, s);
    }

    /** Opens a connection and logs in a normal session (fails the test if the target refuses). */
    static TestConnection loggedIn(IscsiTarget target) throws IOException {
        TestConnection c = open(target);
        c.login();
        return c;
    }

    int newItt() {
        return nextItt++;
    }

    int cmdSn() {
        return cmdSn;
    }

    /** The CmdSN for a non-immediate command; later commands get the following numbers. */
    int nextCmdSn() {
        return cmdSn++;
    }

    /** The last PDU read from the target, or null. */
    TestPdu lastReceived() {
        return lastReceived;
    }

    /** The last Login Response of {@link #attemptLogin}, or null. */
    TestPdu loginResponse() {
        return loginResponse;
    }

    /** Keys the target sent during login, all rounds merged. */
    Map<String, String> negotiated() {
        return Map.copyOf(negotiated);
    }

    boolean headerDigest() {
        return headerDigest;
    }

    boolean dataDigest() {
        return dataDigest;
    }

    /** A fresh ISID qualifier for {@link #loginRequest(boolean, Map, int)}; each one names a new session. */
    static int newIsidQualifier() {
        return ISID_QUALIFIER.incrementAndGet();
    }

    int expStatSn() {
        return expStatSn;
    }

    int targetMaxRecvDataSegmentLength() {
        return targetMaxRecvDataSegmentLength;
    }

    List<String> trace() {
        return List.copyOf(trace);
    }

    /** A Login Request with a fresh ISID; {@code transit} asks to go to Full Feature Phase. */
    TestPdu loginRequest(boolean transit, Map<String, String> keys) {
        return loginRequest(transit, keys, newIsidQualifier());
    }

    /** A Login Request whose ISID carries {@code q}: the same qualifier twice means the same session. */
    TestPdu loginRequest(boolean transit, Map<String, String> keys, int q) {
        // CSG=1 (operational negotiation, no authentication), NSG=3 (full feature)
        return TestPdu.of(TestPdu.LOGIN_REQUEST)
                .immediate()
                .flags(transit ? TestPdu.TRANSIT | 1 << 2 | 3 : 1 << 2)
                .byteAt(8, 0x80) // ISID type "random"
                .byteAt(11, q >>> 16)
                .byteAt(12, q >>> 8)
                .byteAt(13, q)
                .itt(newItt())
                .int32(24, cmdSn)
                .int32(28, expStatSn)
                .text(keys);
    }

    static Map<String, String> loginKeys(IscsiTarget target) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("InitiatorName", INITIATOR_NAME);
        keys.put("TargetName", target.iqn());
        keys.put("SessionType", "Normal");
        keys.put("HeaderDigest", "None");
        keys.put("DataDigest", "None");
        keys.put("MaxRecvDataSegmentLength", "8192");
        keys.put("ErrorRecoveryLevel", "0");
        return keys;
    }

    void login() throws IOException {
        TestPdu rsp = attemptLogin(loginKeys(target), newIsidQualifier());
        if (rsp == null || rsp.byteAt(36) != 0) {
            fail("login refused: " + rsp + "\ntrace: " + trace);
        }
    }

    /** Opens a connection and logs in with these keys and ISID qualifier (fails the test if refused). */
    static TestConnection loggedIn(IscsiTarget target, Map<String, String> keys, int isidQualifier) throws IOException {
        TestConnection c = open(target);
        TestPdu rsp = c.attemptLogin(keys, isidQualifier);
        if (rsp == null || rsp.byteAt(36) != 0) {
            fail("login refused: " + rsp + "\ntrace: " + c.trace);
        }
        return c;
    }

    /**
     * Runs a login to Full Feature Phase and returns the last Login Response: the one with T=1 NSG=3,
     * or the first with a non-zero Status-Class; null if the target closed or went silent. After a
     * successful login CmdSN follows the target's ExpCmdSN and the negotiated digests are on.
     */
    TestPdu attemptLogin(Map<String, String> keys, int isidQualifier) throws IOException {
        send(loginRequest(true, keys, isidQualifier));
        Set<String> offered = new HashSet<>(keys.keySet());
        byte[] isid = null;
        for (int round = 0; round < 8; round++) {
            TestPdu rsp;
            try {
                rsp = read(REPLY_TIMEOUT);
            } catch (SocketTimeoutException e) {
                return null;
            }
            loginResponse = rsp;
            if (rsp == null || rsp.opcode() != TestPdu.LOGIN_RESPONSE || rsp.byteAt(36) != 0) {
                return rsp;
            }
            negotiated.putAll(rsp.textKeys());
            String mrdsl = rsp.textKeys().get("MaxRecvDataSegmentLength");
            if (mrdsl != null) {
                targetMaxRecvDataSegmentLength = Integer.parseInt(mrdsl);
            }
            if ((rsp.flags() & TestPdu.TRANSIT) != 0 && (rsp.flags() & 3) == 3) {
                cmdSn = rsp.int32(28);
                headerDigest = "CRC32C".equals(negotiated.get("HeaderDigest"));
                dataDigest = "CRC32C".equals(negotiated.get("DataDigest"));
                return rsp;
            }
            if (isid == null) {
                isid = Arrays.copyOfRange(rsp.bhs, 8, 14);
            }
            // the target wants another round: same ISID and ITT; keys it offered on its own are accepted as offered
            Map<String, String> answers = new LinkedHashMap<>();
            rsp.textKeys().forEach((k, v) -> {
                if (!offered.contains(k) && !TARGET_DECLARATIONS.contains(k)) {
                    answers.put(k, v);
                    offered.add(k);
                }
            });
            TestPdu next = TestPdu.of(TestPdu.LOGIN_REQUEST)
                    .immediate()
                    .flags(TestPdu.TRANSIT | 1 << 2 | 3)
                    .itt(rsp.itt())
                    .int32(24, cmdSn)
                    .int32(28, expStatSn);
            if (!answers.isEmpty()) {
                next.text(answers);
            }
            System.arraycopy(isid, 0, next.bhs, 8, 6);
            send(next);
        }
        fail("login did not reach Full Feature Phase in 8 rounds\ntrace: " + trace);
        return null;
    }

    /** After a scenario: the daemon runs, and a new connection logs in and answers a ping. */
    static void assertFreshSessionWorks(DaemonProcess daemon) throws IOException {
        daemon.assertAlive();
        try (TestConnection c = loggedIn(daemon.target())) {
            c.ping();
        } catch (AssertionError e) {
            fail("a fresh session does not work: " + e.getMessage() + "\n" + daemon.logTail());
        }
    }

    /** NOP-Out (immediate, ITT != 0xffffffff) must be answered by a NOP-In with the same ITT. */
    void ping() throws IOException {
        int itt = sendPing();
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            TestPdu p;
            try {
                p = read(REPLY_TIMEOUT);
            } catch (SocketTimeoutException e) {
                break;
            }
            if (p == null) {
                fail("connection closed while waiting for NOP-In itt=" + itt + "\ntrace: " + trace);
            }
            if (p.opcode() == TestPdu.NOP_IN && p.itt() == itt) {
                return;
            }
        }
        fail("no NOP-In for itt=" + itt + "\ntrace: " + trace);
    }

    /** Pings; returns CLOSED if the target closes instead, SILENT if neither happens in time. */
    Outcome pingOrClosed() throws IOException {
        int itt;
        try {
            itt = sendPing();
        } catch (SocketException e) {
            return Outcome.CLOSED;
        }
        try {
            while (true) {
                TestPdu p = read(REPLY_TIMEOUT);
                if (p == null) {
                    return Outcome.CLOSED;
                }
                if (p.opcode() == TestPdu.NOP_IN && p.itt() == itt) {
                    return Outcome.ANSWERED;
                }
            }
        } catch (SocketTimeoutException e) {
            return Outcome.SILENT;
        }
    }

    private int sendPing() throws IOException {
        int itt = newItt();
        send(TestPdu.of(TestPdu.NOP_OUT)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(itt)
                .int32(20, TestPdu.RESERVED_TAG)
                .int32(24, cmdSn)
                .int32(28, expStatSn));
        return itt;
    }

    /** Waits for the target's answer to something invalid: a Reject, a login reject, or a close. */
    Outcome awaitRejectOrClose(Duration limit) throws IOException {
        try {
            TestPdu p = read(limit);
            if (p == null) {
                return Outcome.CLOSED;
            }
            if (p.opcode() == TestPdu.REJECT) {
                return Outcome.REJECT;
            }
            if (p.opcode() == TestPdu.LOGIN_RESPONSE && p.byteAt(36) != 0) {
                return Outcome.LOGIN_REJECT;
            }
            return Outcome.OTHER_PDU;
        } catch (SocketTimeoutException e) {
            return Outcome.SILENT;
        }
    }

    /** Sends the PDU, with the negotiated digests. */
    /** The next PDU (keepalive pings answered); fails with the trace if the target closes or stays silent. */
    TestPdu expect(Duration limit, String what) throws IOException {
        TestPdu p;
        try {
            p = read(limit);
        } catch (SocketTimeoutException e) {
            fail("nothing in " + limit.toMillis() + " ms while waiting for " + what + "\ntrace: " + trace);
            return null;
        }
        if (p == null) {
            fail("connection closed while waiting for " + what + "\ntrace: " + trace);
        }
        return p;
    }

    /** A SCSI Command (simple task attribute) on {@code lun} taking the next CmdSN; add immediate data with {@code data()}. */
    TestPdu scsiCommand(int lun, int itt, byte[] cdb, int expectedDataTransferLength, int readWrite, boolean finalBit) {
        TestPdu p = TestPdu.of(TestPdu.SCSI_COMMAND)
                .flags((finalBit ? TestPdu.FINAL : 0) | readWrite | 1)
                .lun(lun)
                .itt(itt)
                .int32(20, expectedDataTransferLength)
                .int32(24, nextCmdSn())
                .int32(28, expStatSn);
        for (int i = 0; i < cdb.length; i++) {
            p.byteAt(32 + i, cdb[i]);
        }
        return p;
    }

    /** A Data-Out PDU; {@code ttt} is 0xffffffff for unsolicited data. */
    TestPdu dataOut(int lun, int itt, int ttt, int dataSn, int bufferOffset, byte[] data, boolean finalBit) {
        return TestPdu.of(TestPdu.DATA_OUT)
                .flags(finalBit ? TestPdu.FINAL : 0)
                .lun(lun)
                .itt(itt)
                .int32(20, ttt)
                .int32(28, expStatSn)
                .int32(36, dataSn)
                .int32(40, bufferOffset)
                .data(data);
    }

    /** An immediate Task Management Function Request (RFC 7143 11.5). */
    TestPdu taskManagement(int function, int lun, int itt, int referencedItt, int refCmdSn) {
        return TestPdu.of(TestPdu.TASK_MGMT_REQUEST)
                .immediate()
                .flags(TestPdu.FINAL | function)
                .lun(lun)
                .itt(itt)
                .int32(20, referencedItt)
                .int32(24, cmdSn)
                .int32(28, expStatSn)
                .int32(32, refCmdSn);
    }

    /**
     * Reads until the status of the command {@code itt} (SCSI Response, or Data-In with S=1), gathering its
     * Data-In by Buffer Offset. PDUs for other tasks are kept in the result. Fails on close or timeout.
     */
    ScsiResult awaitStatus(int itt, Duration limit) throws IOException {
        List<TestPdu> mine = new ArrayList<>();
        List<TestPdu> others = new ArrayList<>();
        byte[] data = new byte[0];
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            TestPdu p;
            try {
                p = read(Duration.ofMillis(left));
            } catch (SocketTimeoutException e) {
                fail("no status for itt=0x" + Integer.toHexString(itt) + " in " + limit.toMillis() + " ms\ntrace: "
                        + trace);
                return null;
            }
            if (p == null) {
                fail("connection closed while waiting for the status of itt=0x" + Integer.toHexString(itt) + "\ntrace: "
                        + trace);
            }
            if (p.itt() != itt) {
                others.add(p);
                continue;
            }
            mine.add(p);
            if (p.opcode() == TestPdu.DATA_IN) {
                int offset = p.int32(40);
                byte[] segment = p.data();
                if (offset + segment.length > data.length) {
                    data = Arrays.copyOf(data, offset + segment.length);
                }
                System.arraycopy(segment, 0, data, offset, segment.length);
                if ((p.flags() & 0x01) != 0) {
                    return new ScsiResult(p.byteAt(3), 0, data, new byte[0], p, mine, others);
                }
            } else if (p.opcode() == TestPdu.SCSI_RESPONSE) {
                byte[] seg = p.data();
                byte[] sense = new byte[0];
                if (seg.length >= 2) {
                    int senseLength = (seg[0] & 0xff) << 8 | (seg[1] & 0xff);
                    sense = Arrays.copyOfRange(seg, 2, 2 + Math.min(senseLength, seg.length - 2));
                }
                return new ScsiResult(p.byteAt(3), p.byteAt(2), data, sense, p, mine, others);
            } else if (p.opcode() != TestPdu.R2T) {
                fail("unexpected PDU for itt=0x" + Integer.toHexString(itt) + ": " + p + "\ntrace: " + trace);
            }
        }
    }

    /**
     * {@link #awaitStatus}, or null when the connection closed or no status came within {@code limit} (a fenced
     * gateway may drop a connection rather than answer).
     */
    ScsiResult awaitStatusOrNull(int itt, Duration limit) throws IOException {
        try {
            return awaitStatus(itt, limit);
        } catch (AssertionFailedError e) {
            return null;
        } catch (SocketException e) {
            return null;
        }
    }

    /** Bytes the target has sent that this side has not read yet. */
    int pendingBytes() throws IOException {
        return in.available();
    }

    void send(TestPdu pdu) throws IOException {
        trace.add("-> " + pdu);
        out.write(pdu.toBytes(headerDigest, dataDigest));
        out.flush();
    }

    void sendRaw(byte[] bytes, String what) throws IOException {
        trace.add("-> " + bytes.length + " raw bytes: " + what);
        out.write(bytes);
        out.flush();
    }

    /**
     * The next PDU, or null once the target closed the connection (EOF or reset). The target's
     * own keepalive pings (NOP-In with a Target Transfer Tag) are answered here and skipped.
     *
     * @throws SocketTimeoutException if nothing arrives within {@code limit}
     */
    TestPdu read(Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new SocketTimeoutException("nothing but keepalive pings within " + limit.toMillis() + " ms");
            }
            TestPdu p = readRaw(Duration.ofMillis(left));
            if (p == null
                    || p.opcode() != TestPdu.NOP_IN
                    || p.itt() != TestPdu.RESERVED_TAG
                    || p.int32(20) == TestPdu.RESERVED_TAG) {
                return p;
            }
            TestPdu pong = TestPdu.of(TestPdu.NOP_OUT)
                    .immediate()
                    .flags(TestPdu.FINAL)
                    .itt(TestPdu.RESERVED_TAG)
                    .int32(20, p.int32(20))
                    .int32(24, cmdSn)
                    .int32(28, expStatSn);
            System.arraycopy(p.bhs, 8, pong.bhs, 8, 8); // LUN echoed
            send(pong);
        }
    }

    /**
     * The next PDU as it comes (the target's keepalive pings included), or null once the target closed
     * the connection. With digests negotiated they are read and checked into the PDU's
     * {@code headerDigestOk} / {@code dataDigestOk}.
     *
     * @throws SocketTimeoutException if nothing arrives within {@code limit}
     */
    TestPdu readRaw(Duration limit) throws IOException {
        socket.setSoTimeout((int) limit.toMillis());
        try {
            byte[] bhs = readFully(TestPdu.BHS_LENGTH);
            TestPdu head = TestPdu.received(bhs, new byte[0]);
            byte[] ahs = readFully(head.totalAhsLength());
            boolean headerOk = true;
            if (headerDigest) {
                byte[] header = new byte[bhs.length + ahs.length];
                System.arraycopy(bhs, 0, header, 0, bhs.length);
                System.arraycopy(ahs, 0, header, bhs.length, ahs.length);
                headerOk = TestPdu.digestAt(readFully(TestPdu.DIGEST_LENGTH), 0)
                        == TestPdu.crc32c(header, 0, header.length);
            }
            int dsl = head.dataSegmentLength();
            int padded = (dsl + 3) & ~3;
            byte[] segment = readFully(padded);
            boolean dataOk = true;
            if (dataDigest && dsl > 0) {
                dataOk = TestPdu.digestAt(readFully(TestPdu.DIGEST_LENGTH), 0) == TestPdu.crc32c(segment, 0, padded);
            }
            TestPdu p = TestPdu.received(bhs, Arrays.copyOf(segment, dsl));
            p.headerDigestOk = headerOk;
            p.dataDigestOk = dataOk;
            lastReceived = p;
            trace.add(
                    "<- " + p + (headerOk && dataOk ? "" : " DIGEST MISMATCH header=" + headerOk + " data=" + dataOk));
            if (advancesStatSn(p)) {
                expStatSn = p.int32(24) + 1;
            }
            return p;
        } catch (EOFException e) {
            trace.add("<- EOF");
            return null;
        } catch (SocketTimeoutException e) {
            trace.add("<- nothing in " + limit.toMillis() + " ms");
            throw e;
        } catch (SocketException e) {
            trace.add("<- " + e.getMessage());
            return null;
        }
    }

    private static boolean advancesStatSn(TestPdu p) {
        return switch (p.opcode()) {
            case TestPdu.LOGIN_RESPONSE,
                    TestPdu.SCSI_RESPONSE,
                    TestPdu.REJECT,
                    TestPdu.TASK_MGMT_RESPONSE,
                    TestPdu.TEXT_RESPONSE,
                    TestPdu.LOGOUT_RESPONSE,
                    TestPdu.ASYNC_MESSAGE -> true;
            case TestPdu.NOP_IN -> p.itt() != TestPdu.RESERVED_TAG;
            case TestPdu.DATA_IN -> (p.flags() & 0x01) != 0;
            default -> false;
        };
    }

    private byte[] readFully(int n) throws IOException {
        byte[] b = new byte[n];
        int off = 0;
        while (off < n) {
            int r = in.read(b, off, n - off);
            if (r < 0) {
                throw new EOFException();
            }
            off += r;
        }
        return b;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
