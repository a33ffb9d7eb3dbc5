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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One raw TCP connection to the target, speaking just enough iSCSI for the malformed-PDU tests:
 * a normal-session login, NOP-Out pings, and reading PDUs with a time limit. Every PDU seen is
 * kept in {@link #trace()} for failure messages.
 */
final class TestConnection implements AutoCloseable {

    static final String INITIATOR_NAME = "iqn.2026-11.io.numaiscsi:raw-pdu-test";
    static final Duration REPLY_TIMEOUT = Duration.ofSeconds(5);
    private static final AtomicInteger ISID_QUALIFIER = new AtomicInteger((int) (System.nanoTime() & 0xffff));

    /** What the target did with something it should not accept. */
    enum Outcome { REJECT, LOGIN_REJECT, CLOSED, SILENT, OTHER_PDU, ANSWERED }

    private final IscsiTarget target;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final List<String> trace = new ArrayList<>();
    private int nextItt = 1;
    private int cmdSn = 1;
    private int expStatSn;
    private int targetMaxRecvDataSegmentLength = 8192;

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
        int q = ISID_QUALIFIER.incrementAndGet();
        // CSG=1 (operational negotiation, no authentication), NSG=3 (full feature)
        return TestPdu.of(TestPdu.LOGIN_REQUEST).immediate()
                .flags(transit ? TestPdu.TRANSIT | 1 << 2 | 3 : 1 << 2)
                .byteAt(8, 0x80) // ISID type "random"
                .byteAt(11, q >>> 16).byteAt(12, q >>> 8).byteAt(13, q)
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
        send(loginRequest(true, loginKeys(target)));
        byte[] isid = null;
        for (int round = 0; round < 8; round++) {
            TestPdu rsp = read(REPLY_TIMEOUT);
            if (rsp == null || rsp.opcode() != TestPdu.LOGIN_RESPONSE || rsp.byteAt(36) != 0) {
                fail("login refused: " + rsp + "\ntrace: " + trace);
            }
            String mrdsl = rsp.textKeys().get("MaxRecvDataSegmentLength");
            if (mrdsl != null) {
                targetMaxRecvDataSegmentLength = Integer.parseInt(mrdsl);
            }
            if ((rsp.flags() & TestPdu.TRANSIT) != 0 && (rsp.flags() & 3) == 3) {
                cmdSn = rsp.int32(28);
                return;
            }
            if (isid == null) {
                isid = java.util.Arrays.copyOfRange(rsp.bhs, 8, 14);
            }
            // the target wants another round: same ISID and ITT, no new keys
            TestPdu next = TestPdu.of(TestPdu.LOGIN_REQUEST).immediate().flags(TestPdu.TRANSIT | 1 << 2 | 3)
                    .itt(rsp.itt()).int32(24, cmdSn).int32(28, expStatSn);
            System.arraycopy(isid, 0, next.bhs, 8, 6);
            send(next);
        }
        fail("login did not reach Full Feature Phase in 8 rounds\ntrace: " + trace);
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
        send(TestPdu.of(TestPdu.NOP_OUT).immediate().flags(TestPdu.FINAL)
                .itt(itt).int32(20, TestPdu.RESERVED_TAG).int32(24, cmdSn).int32(28, expStatSn));
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

    void send(TestPdu pdu) throws IOException {
        trace.add("-> " + pdu);
        out.write(pdu.toBytes());
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
        while (true) {
            TestPdu p = readOne(limit);
            if (p == null || p.opcode() != TestPdu.NOP_IN || p.itt() != TestPdu.RESERVED_TAG
                    || p.int32(20) == TestPdu.RESERVED_TAG) {
                return p;
            }
            TestPdu pong = TestPdu.of(TestPdu.NOP_OUT).immediate().flags(TestPdu.FINAL)
                    .itt(TestPdu.RESERVED_TAG).int32(20, p.int32(20)).int32(24, cmdSn).int32(28, expStatSn);
            System.arraycopy(p.bhs, 8, pong.bhs, 8, 8); // LUN echoed
            send(pong);
        }
    }

    private TestPdu readOne(Duration limit) throws IOException {
        socket.setSoTimeout((int) limit.toMillis());
        try {
            byte[] bhs = readFully(TestPdu.BHS_LENGTH);
            TestPdu head = TestPdu.received(bhs, new byte[0]);
            readFully(head.totalAhsLength());
            int dsl = head.dataSegmentLength();
            byte[] data = readFully(dsl);
            readFully(((dsl + 3) & ~3) - dsl);
            TestPdu p = TestPdu.received(bhs, data);
            trace.add("<- " + p);
            if (p.opcode() == TestPdu.LOGIN_RESPONSE || p.opcode() == TestPdu.SCSI_RESPONSE
                    || p.opcode() == TestPdu.REJECT
                    || p.opcode() == TestPdu.NOP_IN && p.itt() != TestPdu.RESERVED_TAG) {
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
