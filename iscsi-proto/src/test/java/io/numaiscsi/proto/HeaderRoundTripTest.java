package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every opcode's BHS: built (target setters, or raw bytes at the RFC 7143 offsets for initiator
 * PDUs), framed by the encoder with digests, decoded byte by byte, read back through the flyweight.
 */
class HeaderRoundTripTest {
    private static final long LUN = Lun.encode(300);
    private final TrackingAllocator alloc = new TrackingAllocator();
    private final PduEncoder encoder = new PduEncoder();
    private final PduDecoder decoder = new PduDecoder();

    HeaderRoundTripTest() {
        encoder.digests(true, true);
        decoder.digests(true, true);
    }

    @AfterEach
    void nothingLeaked() {
        decoder.reset();
        alloc.assertAllReleased();
    }

    private ByteBuf fresh() {
        return alloc.buffer(48);
    }

    private Pdu roundTrip(ByteBuf bhs, int dataLength, Opcode expected) {
        ByteBuf data = dataLength == 0 ? null : Wire.pattern(alloc, dataLength, 0);
        List<Pdu> pdus = Wire.feedByteAtATime(decoder, encoder.encode(alloc, bhs, null, data), alloc);
        assertEquals(1, pdus.size());
        Pdu pdu = pdus.get(0);
        assertSame(expected, pdu.opcode());
        assertEquals(expected.code(), pdu.opcodeCode());
        assertEquals(dataLength, Bhs.dataSegmentLength(pdu.bhs()));
        assertEquals(dataLength, pdu.data() == null ? 0 : pdu.data().readableBytes());
        assertFalse(pdu.dataDigestError());
        return pdu;
    }

    /** A raw initiator BHS: byte 0 and 1 given, everything else zero. */
    private ByteBuf raw(int byte0, int byte1) {
        ByteBuf bhs = fresh().writeZero(48);
        bhs.setByte(0, byte0);
        bhs.setByte(1, byte1);
        return bhs;
    }

    // ---------------- target PDUs ----------------

    @Test
    void nopIn() {
        ByteBuf bhs = fresh();
        new NopInHeader()
                .wrap(bhs)
                .init()
                .lun(LUN)
                .initiatorTaskTag(0x11)
                .targetTransferTag(-1)
                .statSN(1)
                .expCmdSN(2)
                .maxCmdSN(3);
        assertEquals(0, bhs.readerIndex());
        assertEquals(48, bhs.writerIndex());
        Pdu pdu = roundTrip(bhs, 3, Opcode.NOP_IN);
        NopInHeader h = new NopInHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertEquals(LUN, h.lun());
        assertEquals(0x11, h.initiatorTaskTag());
        assertEquals(-1, h.targetTransferTag());
        assertEquals(1, h.statSN());
        assertEquals(2, h.expCmdSN());
        assertEquals(3, h.maxCmdSN());
        assertEquals(3, h.dataSegmentLength());
        assertEquals(1, pdu.bhs().getInt(24), "StatSN at byte 24");
        pdu.release();
    }

    @Test
    void scsiResponse() {
        ByteBuf bhs = fresh();
        new ScsiResponseHeader()
                .wrap(bhs)
                .init()
                .bidiOverflow(true)
                .bidiUnderflow(false)
                .overflow(false)
                .underflow(true)
                .response(ScsiResponseHeader.RESPONSE_COMPLETED_AT_TARGET)
                .status(0x02)
                .initiatorTaskTag(0x22)
                .snackTag(5)
                .statSN(10)
                .expCmdSN(11)
                .maxCmdSN(12)
                .expDataSN(13)
                .bidiResidualCount(14)
                .residualCount(15);
        Pdu pdu = roundTrip(bhs, 18, Opcode.SCSI_RESPONSE);
        ScsiResponseHeader h = new ScsiResponseHeader().wrap(pdu.bhs());
        assertEquals(0x80 | 0x10 | 0x02, pdu.bhs().getUnsignedByte(1));
        assertTrue(h.bidiOverflow());
        assertFalse(h.bidiUnderflow());
        assertFalse(h.overflow());
        assertTrue(h.underflow());
        assertEquals(0, h.response());
        assertEquals(0x02, h.status());
        assertEquals(0x22, h.initiatorTaskTag());
        assertEquals(5, h.snackTag());
        assertEquals(10, h.statSN());
        assertEquals(11, h.expCmdSN());
        assertEquals(12, h.maxCmdSN());
        assertEquals(13, h.expDataSN());
        assertEquals(14, h.bidiResidualCount());
        assertEquals(15, h.residualCount());
        assertEquals(15, pdu.bhs().getInt(44), "residual count at byte 44");
        pdu.release();
    }

    @Test
    void taskMgmtResponse() {
        ByteBuf bhs = fresh();
        new TaskMgmtResponseHeader()
                .wrap(bhs)
                .init()
                .response(TmfResponse.TASK_DOES_NOT_EXIST)
                .initiatorTaskTag(0x33)
                .statSN(20)
                .expCmdSN(21)
                .maxCmdSN(22);
        Pdu pdu = roundTrip(bhs, 0, Opcode.TASK_MGMT_RESPONSE);
        TaskMgmtResponseHeader h = new TaskMgmtResponseHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertSame(TmfResponse.TASK_DOES_NOT_EXIST, TmfResponse.of(h.response()));
        assertEquals(0x33, h.initiatorTaskTag());
        assertEquals(20, h.statSN());
        assertEquals(21, h.expCmdSN());
        assertEquals(22, h.maxCmdSN());
        pdu.release();
    }

    @Test
    void loginResponse() {
        ByteBuf bhs = fresh();
        new LoginResponseHeader()
                .wrap(bhs)
                .init()
                .transit(true)
                .continueBit(false)
                .csg(1)
                .nsg(3)
                .versionMax(0)
                .versionActive(0)
                .isid(0x0002_3d00_0001L)
                .tsih(0x1234)
                .initiatorTaskTag(0x44)
                .statSN(30)
                .expCmdSN(31)
                .maxCmdSN(32)
                .status(LoginStatus.AUTHORIZATION_FAILURE);
        Pdu pdu = roundTrip(bhs, 21, Opcode.LOGIN_RESPONSE);
        LoginResponseHeader h = new LoginResponseHeader().wrap(pdu.bhs());
        assertEquals(0x87, pdu.bhs().getUnsignedByte(1), "T=1, CSG=1, NSG=3");
        assertTrue(h.transit());
        assertFalse(h.continueBit());
        assertEquals(1, h.csg());
        assertEquals(3, h.nsg());
        assertEquals(0x0002_3d00_0001L, h.isid());
        assertEquals(0x3d, pdu.bhs().getUnsignedByte(10));
        assertEquals(0x1234, h.tsih());
        assertEquals(0x44, h.initiatorTaskTag());
        assertEquals(30, h.statSN());
        assertEquals(31, h.expCmdSN());
        assertEquals(32, h.maxCmdSN());
        assertSame(LoginStatus.AUTHORIZATION_FAILURE, LoginStatus.of(h.statusClass(), h.statusDetail()));
        assertEquals(0x02, pdu.bhs().getUnsignedByte(36));
        h.csg(0).nsg(1);
        assertEquals(0x81, pdu.bhs().getUnsignedByte(1), "stage setters keep the other bits");
        pdu.release();
    }

    @Test
    void textResponse() {
        ByteBuf bhs = fresh();
        new TextResponseHeader()
                .wrap(bhs)
                .init()
                .finalBit(false)
                .continueBit(true)
                .lun(LUN)
                .initiatorTaskTag(0x55)
                .targetTransferTag(0x66)
                .statSN(40)
                .expCmdSN(41)
                .maxCmdSN(42);
        Pdu pdu = roundTrip(bhs, 100, Opcode.TEXT_RESPONSE);
        TextResponseHeader h = new TextResponseHeader().wrap(pdu.bhs());
        assertFalse(h.finalBit());
        assertTrue(h.continueBit());
        assertEquals(LUN, h.lun());
        assertEquals(0x55, h.initiatorTaskTag());
        assertEquals(0x66, h.targetTransferTag());
        assertEquals(40, h.statSN());
        assertEquals(41, h.expCmdSN());
        assertEquals(42, h.maxCmdSN());
        pdu.release();
    }

    @Test
    void dataIn() {
        ByteBuf bhs = fresh();
        DataInHeader init = new DataInHeader().wrap(bhs).init();
        assertEquals(-1, init.targetTransferTag(), "TTT reserved by default");
        init.finalBit(true)
                .acknowledge(false)
                .overflow(false)
                .underflow(true)
                .statusPresent(true)
                .status(0)
                .lun(LUN)
                .initiatorTaskTag(0x77)
                .statSN(50)
                .expCmdSN(51)
                .maxCmdSN(52)
                .dataSN(53)
                .bufferOffset(8192)
                .residualCount(512);
        Pdu pdu = roundTrip(bhs, 4096, Opcode.SCSI_DATA_IN);
        DataInHeader h = new DataInHeader().wrap(pdu.bhs());
        assertEquals(0x83, pdu.bhs().getUnsignedByte(1), "F, U, S");
        assertTrue(h.finalBit());
        assertFalse(h.acknowledge());
        assertFalse(h.overflow());
        assertTrue(h.underflow());
        assertTrue(h.statusPresent());
        assertEquals(0, h.status());
        assertEquals(LUN, h.lun());
        assertEquals(0x77, h.initiatorTaskTag());
        assertEquals(-1, h.targetTransferTag());
        assertEquals(50, h.statSN());
        assertEquals(51, h.expCmdSN());
        assertEquals(52, h.maxCmdSN());
        assertEquals(53, h.dataSN());
        assertEquals(8192, h.bufferOffset());
        assertEquals(512, h.residualCount());
        assertEquals(53, pdu.bhs().getInt(36));
        h.acknowledge(true);
        assertEquals(0xc3, pdu.bhs().getUnsignedByte(1));
        pdu.release();
    }

    @Test
    void logoutResponse() {
        ByteBuf bhs = fresh();
        new LogoutResponseHeader()
                .wrap(bhs)
                .init()
                .response(LogoutResponseHeader.RESPONSE_CID_NOT_FOUND)
                .initiatorTaskTag(0x88)
                .statSN(60)
                .expCmdSN(61)
                .maxCmdSN(62)
                .time2Wait(2)
                .time2Retain(20);
        Pdu pdu = roundTrip(bhs, 0, Opcode.LOGOUT_RESPONSE);
        LogoutResponseHeader h = new LogoutResponseHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertEquals(1, h.response());
        assertEquals(0x88, h.initiatorTaskTag());
        assertEquals(60, h.statSN());
        assertEquals(61, h.expCmdSN());
        assertEquals(62, h.maxCmdSN());
        assertEquals(2, h.time2Wait());
        assertEquals(20, h.time2Retain());
        assertEquals(20, pdu.bhs().getUnsignedShort(42));
        pdu.release();
    }

    @Test
    void r2t() {
        ByteBuf bhs = fresh();
        new R2tHeader()
                .wrap(bhs)
                .init()
                .lun(LUN)
                .initiatorTaskTag(0x99)
                .targetTransferTag(0xaa)
                .statSN(70)
                .expCmdSN(71)
                .maxCmdSN(72)
                .r2tSN(73)
                .bufferOffset(65536)
                .desiredDataTransferLength(262144);
        Pdu pdu = roundTrip(bhs, 0, Opcode.R2T);
        R2tHeader h = new R2tHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertEquals(LUN, h.lun());
        assertEquals(0x99, h.initiatorTaskTag());
        assertEquals(0xaa, h.targetTransferTag());
        assertEquals(70, h.statSN());
        assertEquals(71, h.expCmdSN());
        assertEquals(72, h.maxCmdSN());
        assertEquals(73, h.r2tSN());
        assertEquals(65536, h.bufferOffset());
        assertEquals(262144, h.desiredDataTransferLength());
        assertEquals(262144, pdu.bhs().getInt(44));
        pdu.release();
    }

    @Test
    void asyncMessage() {
        ByteBuf bhs = fresh();
        new AsyncMessageHeader()
                .wrap(bhs)
                .init()
                .lun(LUN)
                .statSN(80)
                .expCmdSN(81)
                .maxCmdSN(82)
                .asyncEvent(AsyncMessageHeader.EVENT_LOGOUT_REQUEST)
                .asyncVCode(0)
                .parameter1(0)
                .parameter2(0)
                .parameter3(10);
        Pdu pdu = roundTrip(bhs, 0, Opcode.ASYNC_MESSAGE);
        AsyncMessageHeader h = new AsyncMessageHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertEquals(-1, h.initiatorTaskTag());
        assertEquals(LUN, h.lun());
        assertEquals(80, h.statSN());
        assertEquals(81, h.expCmdSN());
        assertEquals(82, h.maxCmdSN());
        assertEquals(1, h.asyncEvent());
        assertEquals(0, h.asyncVCode());
        assertEquals(10, h.parameter3());
        assertEquals(10, pdu.bhs().getUnsignedShort(42));
        h.parameter1(0xfffe).parameter2(3);
        assertEquals(0xfffe, h.parameter1());
        assertEquals(3, h.parameter2());
        pdu.release();
    }

    @Test
    void reject() {
        ByteBuf bhs = fresh();
        new RejectHeader()
                .wrap(bhs)
                .init()
                .rejectReason(RejectReason.PROTOCOL_ERROR)
                .statSN(90)
                .expCmdSN(91)
                .maxCmdSN(92)
                .dataSN(93);
        Pdu pdu = roundTrip(bhs, 48, Opcode.REJECT);
        RejectHeader h = new RejectHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertSame(RejectReason.PROTOCOL_ERROR, RejectReason.of(h.rejectReason()));
        assertEquals(-1, h.initiatorTaskTag());
        assertEquals(90, h.statSN());
        assertEquals(91, h.expCmdSN());
        assertEquals(92, h.maxCmdSN());
        assertEquals(93, h.dataSN());
        assertEquals(48, h.dataSegmentLength());
        pdu.release();
    }

    @Test
    void initClearsAReusedBuffer() {
        ByteBuf bhs = fresh().writeZero(48);
        for (int i = 0; i < 48; i++) {
            bhs.setByte(i, 0xff);
        }
        bhs.readerIndex(5);
        new R2tHeader().wrap(bhs).init();
        assertEquals(0, bhs.readerIndex());
        assertEquals(48, bhs.readableBytes());
        assertEquals(0x31, bhs.getUnsignedByte(0));
        assertEquals(0x80, bhs.getUnsignedByte(1));
        for (int i = 2; i < 48; i++) {
            assertEquals(0, bhs.getByte(i), "byte " + i);
        }
        bhs.release();
    }

    @Test
    void wrapNeverMovesIndexes() {
        ByteBuf bhs = fresh();
        DataInHeader h = new DataInHeader().wrap(bhs).init();
        bhs.readerIndex(10);
        h.dataSN(5).bufferOffset(6);
        assertEquals(5, h.dataSN());
        assertEquals(10, bhs.readerIndex());
        assertEquals(48, bhs.writerIndex());
        bhs.release();
    }

    // ---------------- initiator PDUs (raw bytes at the RFC offsets) ----------------

    @Test
    void nopOut() {
        ByteBuf bhs = raw(0x40 | 0x00, 0x80);
        bhs.setLong(8, LUN).setInt(16, 0x101).setInt(20, -1).setInt(24, 7).setInt(28, 8);
        Pdu pdu = roundTrip(bhs, 5, Opcode.NOP_OUT);
        NopOutHeader h = new NopOutHeader().wrap(pdu.bhs());
        assertTrue(h.immediate());
        assertTrue(h.finalBit());
        assertEquals(LUN, h.lun());
        assertEquals(0x101, h.initiatorTaskTag());
        assertEquals(-1, h.targetTransferTag());
        assertEquals(7, h.cmdSN());
        assertEquals(8, h.expStatSN());
        assertEquals(5, h.dataSegmentLength());
        pdu.release();
    }

    @Test
    void scsiCommand() {
        ByteBuf bhs = raw(0x01, 0x80 | 0x40 | ScsiCommandHeader.ATTR_ORDERED);
        bhs.setLong(8, LUN)
                .setInt(16, 0x202)
                .setInt(20, 0x80000000)
                .setInt(24, 9)
                .setInt(28, 10);
        for (int i = 0; i < 16; i++) {
            bhs.setByte(32 + i, 0x88 + i);
        }
        Pdu pdu = roundTrip(bhs, 0, Opcode.SCSI_COMMAND);
        ScsiCommandHeader h = new ScsiCommandHeader().wrap(pdu.bhs());
        assertFalse(h.immediate());
        assertTrue(h.finalBit());
        assertTrue(h.readBit());
        assertFalse(h.writeBit());
        assertEquals(ScsiCommandHeader.ATTR_ORDERED, h.taskAttribute());
        assertEquals(LUN, h.lun());
        assertEquals(300, Lun.decode(h.lun()));
        assertEquals(0x202, h.initiatorTaskTag());
        assertEquals(0x8000_0000L, h.expectedDataTransferLength());
        assertEquals(9, h.cmdSN());
        assertEquals(10, h.expStatSN());
        assertEquals(0x88, h.cdbOpcode());
        assertEquals(0x88 + 15, h.cdbByte(15));
        assertEquals(32, ScsiCommandHeader.CDB_OFFSET);
        assertEquals(16, ScsiCommandHeader.CDB_LENGTH);
        pdu.release();
    }

    @Test
    void taskMgmtRequest() {
        ByteBuf bhs = raw(0x40 | 0x02, 0x80 | TaskManagementFunction.ABORT_TASK.code());
        bhs.setLong(8, LUN)
                .setInt(16, 0x303)
                .setInt(20, 0x202)
                .setInt(24, 11)
                .setInt(28, 12)
                .setInt(32, 9)
                .setInt(36, 4);
        Pdu pdu = roundTrip(bhs, 0, Opcode.TASK_MGMT_REQUEST);
        TaskMgmtRequestHeader h = new TaskMgmtRequestHeader().wrap(pdu.bhs());
        assertTrue(h.immediate());
        assertSame(TaskManagementFunction.ABORT_TASK, TaskManagementFunction.of(h.function()));
        assertEquals(LUN, h.lun());
        assertEquals(0x303, h.initiatorTaskTag());
        assertEquals(0x202, h.referencedTaskTag());
        assertEquals(11, h.cmdSN());
        assertEquals(12, h.expStatSN());
        assertEquals(9, h.refCmdSN());
        assertEquals(4, h.expDataSN());
        pdu.release();
    }

    @Test
    void loginRequest() {
        ByteBuf bhs = raw(0x43, 0x80 | (1 << 2) | 3);
        bhs.setByte(2, 0).setByte(3, 0);
        bhs.setInt(8, 0x00023d00)
                .setShort(12, 0x0001)
                .setShort(14, 0)
                .setInt(16, 0x404)
                .setShort(20, 0x0102)
                .setInt(24, 0x12345678)
                .setInt(28, 0x9abcdef0);
        Pdu pdu = roundTrip(bhs, 256, Opcode.LOGIN_REQUEST);
        LoginRequestHeader h = new LoginRequestHeader().wrap(pdu.bhs());
        assertTrue(h.immediate());
        assertTrue(h.transit());
        assertFalse(h.continueBit());
        assertEquals(1, h.csg());
        assertEquals(3, h.nsg());
        assertEquals(0, h.versionMax());
        assertEquals(0, h.versionMin());
        assertEquals(0x0002_3d00_0001L, h.isid());
        assertEquals(0, h.tsih());
        assertEquals(0x404, h.initiatorTaskTag());
        assertEquals(0x0102, h.cid());
        assertEquals(0x12345678, h.cmdSN());
        assertEquals(0x9abcdef0, h.expStatSN());
        assertEquals(256, h.dataSegmentLength());
        pdu.release();
    }

    @Test
    void textRequest() {
        ByteBuf bhs = raw(0x40 | 0x04, 0x40);
        bhs.setLong(8, 0).setInt(16, 0x505).setInt(20, -1).setInt(24, 13).setInt(28, 14);
        Pdu pdu = roundTrip(bhs, 17, Opcode.TEXT_REQUEST);
        TextRequestHeader h = new TextRequestHeader().wrap(pdu.bhs());
        assertTrue(h.immediate());
        assertFalse(h.finalBit());
        assertTrue(h.continueBit());
        assertEquals(0, h.lun());
        assertEquals(0x505, h.initiatorTaskTag());
        assertEquals(-1, h.targetTransferTag());
        assertEquals(13, h.cmdSN());
        assertEquals(14, h.expStatSN());
        assertEquals(17, h.dataSegmentLength());
        pdu.release();
    }

    @Test
    void dataOut() {
        ByteBuf bhs = raw(0x05, 0x80);
        bhs.setLong(8, LUN)
                .setInt(16, 0x606)
                .setInt(20, 0x707)
                .setInt(28, 15)
                .setInt(36, 2)
                .setInt(40, 16384);
        Pdu pdu = roundTrip(bhs, 8192, Opcode.SCSI_DATA_OUT);
        DataOutHeader h = new DataOutHeader().wrap(pdu.bhs());
        assertTrue(h.finalBit());
        assertEquals(LUN, h.lun());
        assertEquals(0x606, h.initiatorTaskTag());
        assertEquals(0x707, h.targetTransferTag());
        assertEquals(15, h.expStatSN());
        assertEquals(2, h.dataSN());
        assertEquals(16384, h.bufferOffset());
        assertEquals(8192, h.dataSegmentLength());
        pdu.release();
    }

    @Test
    void logoutRequest() {
        ByteBuf bhs = raw(0x40 | 0x06, 0x80 | LogoutRequestHeader.REASON_CLOSE_CONNECTION);
        bhs.setInt(16, 0x808).setShort(20, 7).setInt(24, 17).setInt(28, 18);
        Pdu pdu = roundTrip(bhs, 0, Opcode.LOGOUT_REQUEST);
        LogoutRequestHeader h = new LogoutRequestHeader().wrap(pdu.bhs());
        assertTrue(h.immediate());
        assertEquals(LogoutRequestHeader.REASON_CLOSE_CONNECTION, h.reasonCode());
        assertEquals(0x808, h.initiatorTaskTag());
        assertEquals(7, h.cid());
        assertEquals(17, h.cmdSN());
        assertEquals(18, h.expStatSN());
        pdu.release();
    }

    @Test
    void snack() {
        ByteBuf bhs = raw(0x10, 0x80 | SnackHeader.TYPE_STATUS);
        bhs.setLong(8, LUN)
                .setInt(16, 0x909)
                .setInt(20, 0xa0a)
                .setInt(28, 19)
                .setInt(40, 3)
                .setInt(44, 2);
        Pdu pdu = roundTrip(bhs, 0, Opcode.SNACK_REQUEST);
        SnackHeader h = new SnackHeader().wrap(pdu.bhs());
        assertEquals(SnackHeader.TYPE_STATUS, h.snackType());
        assertEquals(LUN, h.lun());
        assertEquals(0x909, h.initiatorTaskTag());
        assertEquals(0xa0a, h.targetTransferTag());
        assertEquals(19, h.expStatSN());
        assertEquals(3, h.begRun());
        assertEquals(2, h.runLength());
        pdu.release();
    }

    @Test
    void commonAccessors() {
        ByteBuf bhs = raw(0x41, 0x80);
        bhs.setByte(4, 3).setMedium(5, 0x010203).setLong(8, LUN).setInt(16, 0xdeadbeef);
        assertEquals(1, Bhs.opcode(bhs));
        assertTrue(Bhs.immediate(bhs));
        assertTrue(Bhs.finalBit(bhs));
        assertEquals(12, Bhs.totalAhsLength(bhs));
        assertEquals(0x010203, Bhs.dataSegmentLength(bhs));
        assertEquals(LUN, Bhs.lun(bhs));
        assertEquals(0xdeadbeef, Bhs.initiatorTaskTag(bhs));
        Bhs.setDataSegmentLength(bhs, 0xffffff);
        assertEquals(0xffffff, Bhs.dataSegmentLength(bhs));
        assertEquals(0xdeadbeef, Bhs.initiatorTaskTag(bhs), "neighbours untouched");
        assertEquals(3, bhs.getByte(4));
        bhs.release();
    }
}
