package io.numaiscsi.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.proto.DataInHeader;
import io.numaiscsi.proto.LoginResponseHeader;
import io.numaiscsi.proto.Opcode;
import io.numaiscsi.proto.R2tHeader;
import io.numaiscsi.proto.RejectHeader;
import io.numaiscsi.proto.ScsiResponseHeader;
import io.numaiscsi.proto.TaskMgmtResponseHeader;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import io.numaiscsi.session.ChapAccounts;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.EventThreads;
import io.numaiscsi.session.ExportedTarget;
import io.numaiscsi.session.SessionServices;
import io.numaiscsi.session.SessionSettings;
import io.numaiscsi.session.SessionTable;
import io.numaiscsi.session.TargetDirectory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session layer driven through the TCP handler in an EmbeddedChannel: input fed one byte at a
 * time, every target PDU checked field by field, nothing left unreleased (paranoid leak detection).
 */
class TcpConnectionHandlerTest {
    private static final String TARGET = "iqn.2026-11.test:disk";
    private static final int BLOCK = 512;

    /** RAM store whose reads wait until {@link #release()}: an I/O still in flight when TMFs arrive. */
    static final class GatedDevice implements BlockDevice {
        private final RamBlockDevice ram = new RamBlockDevice(4 << 20, BLOCK);
        private final List<Runnable> held = new ArrayList<>();
        boolean gate;

        @Override
        public int blockSize() {
            return ram.blockSize();
        }

        @Override
        public long blockCount() {
            return ram.blockCount();
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            if (gate) {
                held.add(() -> ram.read(offset, length, dst, done));
            } else {
                ram.read(offset, length, dst, done);
            }
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            ram.write(offset, src, fua, done);
        }

        @Override
        public void flush(IoCompletion done) {
            ram.flush(done);
        }

        @Override
        public void unmap(long offset, long length, IoCompletion done) {
            ram.unmap(offset, length, done);
        }

        @Override
        public boolean isMapped(long offset) {
            return ram.isMapped(offset);
        }

        @Override
        public long nextMappingChange(long offset) {
            return ram.nextMappingChange(offset);
        }

        @Override
        public void close() {
            ram.close();
        }

        void release() {
            gate = false;
            for (Runnable r : held) {
                r.run();
            }
            held.clear();
        }
    }

    private final GatedDevice device = new GatedDevice();
    private EmbeddedChannel ch;
    private final SessionTable sessions = new SessionTable();
    private int cmdSN = 1;

    @BeforeEach
    void connect() {
        ScsiTarget scsi = new ScsiTarget(
                TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), device)),
                UnpooledByteBufAllocator.DEFAULT);
        ExportedTarget target = new ExportedTarget(TARGET, null, List.of(), scsi);
        // Limits chosen so data movement is visible: bursts of 2 KiB, one R2T at a time, no unsolicited data.
        TargetLimits limits =
                new TargetLimits(8192, 2048, 2048, 1, false, true, List.of("None"), List.of("None"), 2, 0, false, 0);
        SessionSettings settings = new SessionSettings(
                limits,
                16,
                Duration.ZERO,
                Duration.ZERO,
                List.of("127.0.0.1:3260"),
                1,
                LimitsSettings.DEFAULT,
                ChapAccounts.NONE);
        ch = new EmbeddedChannel();
        EventThreads sameThread = new EventThreads() {
            @Override
            public Executor homeOf(ExportedTarget t) {
                return ch.eventLoop();
            }
        };
        SessionServices services = new SessionServices(
                settings, new TargetDirectory(List.of(target)), sessions, sameThread, new EventThreadRegistry());
        ch.pipeline().addLast(new TcpConnectionHandler(services, UnpooledByteBufAllocator.DEFAULT));
    }

    @AfterEach
    void release() {
        ch.finishAndReleaseAll();
    }

    private void sendByteByByte(ByteBuf pdu) {
        while (pdu.isReadable()) {
            ch.writeInbound(pdu.readRetainedSlice(1));
        }
        pdu.release();
        ch.runPendingTasks();
    }

    /** Every PDU the target wrote since the last call, as (header, data) pairs. */
    private List<ByteBuf[]> received() {
        ByteBuf all = Unpooled.buffer();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            all.writeBytes(b);
            b.release();
        }
        List<ByteBuf[]> pdus = new ArrayList<>();
        while (all.isReadable()) {
            ByteBuf bhs = all.readBytes(48);
            int len = bhs.getUnsignedMedium(5);
            ByteBuf data = all.readBytes(len);
            all.skipBytes((4 - len % 4) % 4);
            pdus.add(new ByteBuf[] {bhs, data});
        }
        all.release();
        return pdus;
    }

    private static int opcode(ByteBuf[] pdu) {
        return pdu[0].getByte(0) & 0x3f;
    }

    private static void release(List<ByteBuf[]> pdus) {
        for (ByteBuf[] p : pdus) {
            p[0].release();
            p[1].release();
        }
    }

    private void login(int initiatorMrdsl) {
        sendByteByByte(Wire.login(
                0x10,
                cmdSN,
                Wire.text(
                        "InitiatorName=iqn.2026-11.test:host",
                        "TargetName=" + TARGET,
                        "SessionType=Normal",
                        "HeaderDigest=None",
                        "DataDigest=None",
                        "InitialR2T=Yes",
                        "ImmediateData=No",
                        "MaxRecvDataSegmentLength=" + initiatorMrdsl,
                        "MaxBurstLength=2048",
                        "FirstBurstLength=2048")));
        List<ByteBuf[]> r = received();
        assertEquals(1, r.size());
        LoginResponseHeader h = new LoginResponseHeader().wrap(r.get(0)[0]);
        assertEquals(Opcode.LOGIN_RESPONSE.code(), opcode(r.get(0)));
        assertEquals(0, h.statusClass(), r.get(0)[1].toString(StandardCharsets.UTF_8));
        assertTrue(h.transit());
        assertEquals(3, h.nsg());
        assertTrue(h.tsih() != 0);
        assertEquals(1, sessions.size());
        release(r);
    }

    private byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i * 31);
        }
        return b;
    }

    @Test
    void writeIsSolicitedWithR2tsOneBurstAtATimeThenReadSplitsDataInByTheInitiatorsSegmentLimit() {
        login(1024);
        byte[] data = pattern(4096, 7);
        int writeItt = 0x100;
        sendByteByByte(Wire.scsiCommand(writeItt, cmdSN++, 4096, false, true, true, Wire.write10(8, 8), null));
        for (int burst = 0; burst < 2; burst++) {
            List<ByteBuf[]> r = received();
            assertEquals(1, r.size(), "MaxOutstandingR2T=1: one R2T at a time");
            assertEquals(Opcode.R2T.code(), opcode(r.get(0)));
            R2tHeader r2t = new R2tHeader().wrap(r.get(0)[0]);
            assertEquals(writeItt, r2t.initiatorTaskTag());
            assertEquals(burst, r2t.r2tSN());
            assertEquals(burst * 2048, r2t.bufferOffset());
            assertEquals(2048, r2t.desiredDataTransferLength());
            int ttt = r2t.targetTransferTag();
            release(r);
            for (int pduInBurst = 0; pduInBurst < 2; pduInBurst++) {
                int offset = burst * 2048 + pduInBurst * 1024;
                byte[] chunk = Arrays.copyOfRange(data, offset, offset + 1024);
                sendByteByByte(Wire.dataOut(writeItt, ttt, pduInBurst, offset, pduInBurst == 1, chunk));
            }
        }
        List<ByteBuf[]> r = received();
        assertEquals(1, r.size());
        ScsiResponseHeader status = new ScsiResponseHeader().wrap(r.get(0)[0]);
        assertEquals(writeItt, status.initiatorTaskTag());
        assertEquals(0, status.status());
        assertEquals(2, status.expDataSN(), "ExpDataSN counts the R2Ts of a write");
        assertFalse(status.overflow() || status.underflow());
        release(r);

        int readItt = 0x101;
        sendByteByByte(Wire.scsiCommand(readItt, cmdSN++, 4096, true, false, true, Wire.read10(8, 8), null));
        r = received();
        assertEquals(4, r.size(), "4 KiB in Data-In PDUs of the initiator's 1 KiB MaxRecvDataSegmentLength");
        ByteBuf read = Unpooled.buffer();
        for (int i = 0; i < 4; i++) {
            DataInHeader d = new DataInHeader().wrap(r.get(i)[0]);
            assertEquals(Opcode.SCSI_DATA_IN.code(), opcode(r.get(i)));
            assertEquals(i, d.dataSN());
            assertEquals(i * 1024, d.bufferOffset());
            assertEquals(i == 3, d.statusPresent(), "status only in the last Data-In");
            assertEquals(i % 2 == 1, d.finalBit(), "F ends each MaxBurstLength (2 KiB) sequence");
            read.writeBytes(r.get(i)[1]);
        }
        assertArrayEquals(data, ByteBufUtil.getBytes(read));
        read.release();
        release(r);
    }

    @Test
    void readWithASmallerExpectedLengthReportsOverflowAndSendsOnlyWhatWasExpected() {
        login(8192);
        sendByteByByte(Wire.scsiCommand(0x200, cmdSN++, 1024, true, false, true, Wire.read10(0, 4), null));
        List<ByteBuf[]> r = received();
        assertEquals(1, r.size());
        DataInHeader d = new DataInHeader().wrap(r.get(0)[0]);
        assertTrue(d.statusPresent());
        assertTrue(d.overflow());
        assertEquals(1024, d.residualCount());
        assertEquals(1024, r.get(0)[1].readableBytes());
        release(r);
    }

    @Test
    void abortTaskOfAWriteWaitingForDataAnswersAndDropsItsLateData() {
        login(8192);
        int writeItt = 0x300;
        int writeCmdSN = cmdSN++;
        sendByteByByte(Wire.scsiCommand(writeItt, writeCmdSN, 1024, false, true, true, Wire.write10(0, 2), null));
        List<ByteBuf[]> r = received();
        int ttt = new R2tHeader().wrap(r.get(0)[0]).targetTransferTag();
        release(r);

        sendByteByByte(Wire.abortTask(0x301, cmdSN, writeItt, writeCmdSN));
        r = received();
        assertEquals(1, r.size());
        assertEquals(Opcode.TASK_MGMT_RESPONSE.code(), opcode(r.get(0)));
        TaskMgmtResponseHeader tmf = new TaskMgmtResponseHeader().wrap(r.get(0)[0]);
        assertEquals(0x301, tmf.initiatorTaskTag());
        assertEquals(0, tmf.response(), "function complete");
        release(r);

        sendByteByByte(Wire.dataOut(writeItt, ttt, 0, 0, true, pattern(1024, 1)));
        r = received();
        assertTrue(r.isEmpty(), "no status for an aborted task, no reject for its late data");

        sendByteByByte(Wire.scsiCommand(0x302, cmdSN++, 1024, true, false, true, Wire.read10(0, 2), null));
        r = received();
        assertArrayEquals(new byte[1024], ByteBufUtil.getBytes(r.get(0)[1]), "the aborted write never landed");
        release(r);
    }

    @Test
    void aCommandAbortedByTwoTaskManagementRequestsAnswersBothOnceItStops() {
        login(8192);
        device.gate = true;
        int readItt = 0x500;
        int readCmdSN = cmdSN++;
        sendByteByByte(Wire.scsiCommand(readItt, readCmdSN, 1024, true, false, true, Wire.read10(0, 2), null));
        sendByteByByte(Wire.abortTask(0x501, cmdSN, readItt, readCmdSN));
        sendByteByByte(Wire.lunReset(0x502, cmdSN));
        assertTrue(received().isEmpty(), "both TMFs wait while the aborted READ is still in the store");

        device.release();
        ch.runPendingTasks();
        List<ByteBuf[]> r = received();
        assertEquals(2, r.size(), "one response per TMF, none for the aborted READ");
        for (ByteBuf[] pdu : r) {
            assertEquals(Opcode.TASK_MGMT_RESPONSE.code(), opcode(pdu));
            assertEquals(0, new TaskMgmtResponseHeader().wrap(pdu[0]).response());
        }
        assertEquals(
                Set.of(0x501, 0x502),
                Set.of(
                        new TaskMgmtResponseHeader().wrap(r.get(0)[0]).initiatorTaskTag(),
                        new TaskMgmtResponseHeader().wrap(r.get(1)[0]).initiatorTaskTag()));
        release(r);
    }

    @Test
    void reservedOpcodeInFullFeaturePhaseIsRejectedAndTheConnectionStays() {
        login(8192);
        byte[] h = new byte[48];
        h[0] = 0x0f;
        Wire.putInt(h, 16, 0x400);
        sendByteByByte(Wire.pdu(h, null));
        List<ByteBuf[]> r = received();
        assertEquals(1, r.size());
        assertEquals(Opcode.REJECT.code(), opcode(r.get(0)));
        assertEquals(0x05, new RejectHeader().wrap(r.get(0)[0]).rejectReason(), "command not supported");
        assertEquals(0x0f, r.get(0)[1].getByte(0), "the rejected header comes back as data");
        release(r);
        assertTrue(ch.isActive());
    }

    @Test
    void commandBeforeLoginClosesTheConnection() {
        sendByteByByte(Wire.scsiCommand(1, 1, 0, false, false, true, new byte[6], null));
        ch.runPendingTasks();
        assertFalse(ch.isActive());
        assertEquals(0, sessions.size());
    }
}
