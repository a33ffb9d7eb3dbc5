package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write-buffer budget of a session (limits.write-buffer-per-session): a write that does not fit keeps only its
 * unsolicited data and gets its R2T when an earlier write releases its buffer; aborting a parked write frees it.
 */
class CommandFlowBudgetTest {
    private static final String TARGET = "iqn.2026-11.test:budget";
    private static final int BUDGET = 64 * 1024;
    private static final int WRITE = 64 * 1024;
    private static final int OPCODE_SCSI_RESPONSE = 0x21;
    private static final int OPCODE_DATA_IN = 0x25;
    private static final int OPCODE_R2T = 0x31;

    private FakeTransport transport;
    private IscsiConnection connection;
    private int cmdSN = 1;
    private final AtomicLong clock = new AtomicLong();
    private ConnectionGuards guards;

    private void logIn(boolean initialR2T) {
        logIn(initialR2T, new LimitsSettings(16, 16, BUDGET), null);
    }

    /** Logs in with these limits; {@code shared} guards (null: the connection's own) play the rest of the daemon. */
    private void logIn(boolean initialR2T, LimitsSettings resources, ConnectionGuards shared) {
        TargetLimits limits = new TargetLimits(
                262144, 262144, 65536, 1, true, initialR2T, List.of("None"), List.of("None"), 2, 0, false, 0);
        SessionSettings settings = new SessionSettings(
                limits, 16, Duration.ZERO, Duration.ZERO, List.of("127.0.0.1:3260"), 1, resources, ChapAccounts.NONE);
        guards = shared != null ? shared : ConnectionGuards.of(resources);
        ScsiTarget scsi = new ScsiTarget(
                TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), new RamBlockDevice(4 << 20, 512))),
                UnpooledByteBufAllocator.DEFAULT);
        TargetDirectory directory = new TargetDirectory(List.of(new ExportedTarget(TARGET, null, List.of(), scsi)));
        EventThreads inline = InlineEventThreads.INSTANCE;
        transport = new FakeTransport("127.0.0.1:40000");
        connection = new IscsiConnection(
                transport,
                new SessionServices(settings, directory, new SessionTable(), inline, new EventThreadRegistry(), guards),
                clock::get);
        connection.onPdu(ConnectionLoginTest.request(
                1,
                3,
                0x400001370000L,
                ConnectionLoginTest.keys(
                        "InitiatorName",
                        "iqn.2026-11.test:host",
                        "TargetName",
                        TARGET,
                        "SessionType",
                        "Normal",
                        "ImmediateData",
                        "Yes",
                        "InitialR2T",
                        initialR2T ? "Yes" : "No",
                        "FirstBurstLength",
                        "16384",
                        "MaxRecvDataSegmentLength",
                        "262144")));
        assertNotNull(connection.parameters(), "login did not complete");
        transport.release();
    }

    @AfterEach
    void close() {
        if (transport != null) {
            transport.release();
            connection.onClosed();
        }
    }

    private Pdu command(int itt, boolean read, long lba, int bytes, boolean finalBit, byte[] immediate) {
        ByteBuf bhs = Unpooled.buffer(48, 48).writeZero(48);
        bhs.setByte(0, 0x01);
        bhs.setByte(1, (finalBit ? 0x80 : 0) | (read ? 0x40 : 0x20) | 0x01);
        bhs.setMedium(5, immediate == null ? 0 : immediate.length);
        bhs.setInt(16, itt);
        bhs.setInt(20, bytes);
        bhs.setInt(24, cmdSN++);
        bhs.setByte(32, read ? 0x28 : 0x2a);
        bhs.setInt(32 + 2, (int) lba);
        bhs.setShort(32 + 7, bytes / 512);
        return Pdu.newInstance(bhs, null, immediate == null ? null : Unpooled.wrappedBuffer(immediate));
    }

    private static Pdu dataOut(int itt, int ttt, int dataSN, int offset, byte[] all, int length, boolean finalBit) {
        ByteBuf bhs = Unpooled.buffer(48, 48).writeZero(48);
        bhs.setByte(0, 0x05);
        bhs.setByte(1, finalBit ? 0x80 : 0);
        bhs.setMedium(5, length);
        bhs.setInt(16, itt);
        bhs.setInt(20, ttt);
        bhs.setInt(36, dataSN);
        bhs.setInt(40, offset);
        return Pdu.newInstance(bhs, null, Unpooled.wrappedBuffer(all, offset, length));
    }

    private ByteBuf last(int opcode, int itt) {
        for (int i = transport.written.size() - 1; i >= 0; i--) {
            ByteBuf b = transport.written.get(i);
            if ((b.getByte(0) & 0x3f) == opcode && b.getInt(16) == itt) {
                return b;
            }
        }
        return null;
    }

    private void answerR2t(int itt, byte[] data) {
        ByteBuf r2t = last(OPCODE_R2T, itt);
        assertNotNull(r2t, "an R2T for itt " + itt);
        int offset = r2t.getInt(40);
        int length = r2t.getInt(44);
        connection.onPdu(dataOut(itt, r2t.getInt(20), 0, offset, data, length, true));
    }

    private byte[] read(int itt, long lba, int bytes) {
        connection.onPdu(command(itt, true, lba, bytes, true, null));
        byte[] out = new byte[bytes];
        for (ByteBuf b : transport.written) {
            if ((b.getByte(0) & 0x3f) == OPCODE_DATA_IN && b.getInt(16) == itt) {
                int length = b.getMedium(5);
                b.getBytes(48, out, b.getInt(40), length);
            }
        }
        return out;
    }

    private static byte[] pattern(int seed) {
        byte[] b = new byte[WRITE];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void secondWriteWaitsForBudgetThenGetsItsR2t() {
        logIn(true);
        byte[] a = pattern(1);
        byte[] b = pattern(2);
        connection.onPdu(command(1, false, 0, WRITE, true, null));
        assertNotNull(last(OPCODE_R2T, 1), "the first write fits the budget");
        connection.onPdu(command(2, false, 1024, WRITE, true, null));
        assertNull(last(OPCODE_R2T, 2), "the second write is parked");
        assertEquals(1, connection.commands().parkedWrites());
        assertEquals(WRITE, connection.commands().writeBytesHeld());

        answerR2t(1, a);
        assertEquals(0, last(OPCODE_SCSI_RESPONSE, 1).getByte(3), "first write GOOD");
        assertNotNull(last(OPCODE_R2T, 2), "budget released: the parked write is solicited");
        assertEquals(0, connection.commands().parkedWrites());
        answerR2t(2, b);
        assertEquals(0, last(OPCODE_SCSI_RESPONSE, 2).getByte(3), "second write GOOD");
        assertEquals(0, connection.commands().writeBytesHeld());
        assertArrayEquals(a, read(3, 0, WRITE));
        assertArrayEquals(b, read(4, 1024, WRITE));
    }

    @Test
    void parkedWriteKeepsItsImmediateAndUnsolicitedData() {
        logIn(false);
        byte[] a = pattern(3);
        byte[] b = pattern(4);
        connection.onPdu(command(1, false, 0, WRITE, true, null));
        // B: 4K immediate, then unsolicited Data-Out up to FirstBurstLength (16K), while parked
        connection.onPdu(command(2, false, 2048, WRITE, false, Arrays.copyOf(b, 4096)));
        connection.onPdu(dataOut(2, 0xffffffff, 0, 4096, b, 16384 - 4096, true));
        assertEquals(1, connection.commands().parkedWrites());
        assertNull(last(OPCODE_R2T, 2));
        answerR2t(1, a);
        ByteBuf r2t = last(OPCODE_R2T, 2);
        assertNotNull(r2t);
        assertEquals(16384, r2t.getInt(40), "solicited from the end of the first burst");
        answerR2t(2, b);
        assertEquals(0, last(OPCODE_SCSI_RESPONSE, 2).getByte(3));
        assertArrayEquals(b, read(3, 2048, WRITE), "immediate + unsolicited + solicited data all landed");
    }

    @Test
    void oneWriteLargerThanTheBudgetRunsAloneAndAbortFreesAParkedWrite() {
        logIn(true);
        connection.onPdu(command(1, false, 0, 2 * WRITE, true, null));
        assertNotNull(last(OPCODE_R2T, 1), "an oversized write alone is not blocked");
        connection.onPdu(command(2, false, 1024, WRITE, true, null));
        assertEquals(1, connection.commands().parkedWrites());
        connection.commands().abortAll(-1, null);
        assertEquals(0, connection.commands().parkedWrites());
        assertEquals(0, connection.commands().writeBytesHeld());
        assertNull(last(OPCODE_R2T, 2), "an aborted parked write is never solicited");
    }

    @Test
    void readsWaitWhileTheTransportTakesNoMoreOutput() {
        logIn(true);
        byte[] a = pattern(5);
        connection.onPdu(command(1, false, 0, WRITE, true, null));
        answerR2t(1, a);
        transport.release();
        transport.writable = false; // the peer stopped reading its socket
        connection.onPdu(command(2, true, 0, WRITE, true, null));
        assertNull(last(OPCODE_DATA_IN, 2), "no READ runs while the output is not drained");
        assertEquals(1, connection.commands().parkedReads());
        transport.writable = true;
        connection.onWritable();
        assertEquals(0, connection.commands().parkedReads());
        assertNotNull(last(OPCODE_SCSI_RESPONSE, 2) == null ? last(OPCODE_DATA_IN, 2) : last(OPCODE_SCSI_RESPONSE, 2));
        assertEquals(0, connection.commands().readBytesHeld(), "handed to the transport: no longer charged");
        assertEquals(0, guards.buffers().used());
    }

    @Test
    void aParkedReadIsAbortedWithoutRunning() {
        logIn(true);
        transport.writable = false;
        connection.onPdu(command(1, true, 0, WRITE, true, null));
        assertEquals(1, connection.commands().parkedReads());
        connection.commands().abortAll(-1, null);
        assertEquals(0, connection.commands().parkedReads());
        transport.writable = true;
        connection.onWritable();
        assertNull(last(OPCODE_DATA_IN, 1), "an aborted READ never runs");
    }

    @Test
    void daemonWideBudgetFilledByOthersParksThenWakes() {
        // The rest of the daemon holds the whole buffer budget; this connection has a large budget of its own.
        LimitsSettings resources = new LimitsSettings(16, 16, 16L << 20);
        ConnectionGuards shared = new ConnectionGuards(
                new LoginAdmission(8, 8), new AuthThrottle(0, clock::get), new BufferBudget(2 * WRITE));
        assertTrue(shared.buffers().tryCharge(2 * WRITE));
        logIn(true, resources, shared);
        connection.onPdu(command(1, false, 0, WRITE, true, null));
        assertNotNull(last(OPCODE_R2T, 1), "a connection holding nothing always gets one modest buffer");
        connection.onPdu(command(2, false, 1024, WRITE, true, null));
        assertNull(last(OPCODE_R2T, 2), "a second one waits for the daemon-wide budget");
        assertEquals(1, connection.commands().parkedWrites());
        shared.buffers().release(2 * WRITE); // another connection gives its buffers back
        assertNotNull(last(OPCODE_R2T, 2), "woken by the release");
        answerR2t(1, pattern(6));
        answerR2t(2, pattern(7));
        assertEquals(0, shared.buffers().used(), "every byte charged came back");
    }

    @Test
    void aConnectionOwingDataOutPastTheTimeoutIsDropped() {
        logIn(true);
        connection.onPdu(command(1, false, 0, WRITE, true, null));
        assertNotNull(last(OPCODE_R2T, 1));
        clock.addAndGet(LimitsSettings.DEFAULT.dataOutTimeout().toNanos() - 1);
        connection.onTick();
        assertFalse(transport.closed, "within the timeout");
        clock.addAndGet(2);
        connection.onTick();
        assertTrue(transport.closed, "no Data-Out for limits.data-out-timeout: dropped");
    }
}
