package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The shared base: common fields at the same offsets for every header, setters typed and index-neutral. */
class BhsFlyweightTest {

    private static ByteBuf bhs() {
        return Unpooled.buffer(Bhs.LENGTH);
    }

    @Test
    void initZeroesMakesTheBhsReadableAndWritesOpcodeAndByte1() {
        ByteBuf b = bhs().writeBytes(new byte[] {(byte) 0xaa, (byte) 0xbb, (byte) 0xcc});
        b.setIndex(1, 2);
        NopInHeader h = new NopInHeader().wrap(b).init();
        assertEquals(0, b.readerIndex());
        assertEquals(Bhs.LENGTH, b.writerIndex());
        assertEquals(Opcode.NOP_IN.code(), h.opcode());
        assertTrue(h.finalBit());
        assertFalse(h.immediate());
        assertEquals(0, b.getByte(2));
        assertEquals(0, h.dataSegmentLength());
    }

    @Test
    void commonGettersReadTheSameOffsetsWhateverTheHeader() {
        ByteBuf b = bhs().writeZero(Bhs.LENGTH);
        b.setByte(Bhs.OPCODE_OFFSET, Bhs.IMMEDIATE_BIT | Opcode.TEXT_REQUEST.code());
        b.setByte(Bhs.FLAGS_OFFSET, Bhs.FINAL_BIT);
        Bhs.setTotalAhsLength(b, 8);
        Bhs.setDataSegmentLength(b, 0x123456);
        b.setInt(Bhs.INITIATOR_TASK_TAG_OFFSET, 0x11223344);
        b.setInt(Bhs.CMD_SN_OFFSET, 7);
        b.setInt(Bhs.EXP_STAT_SN_OFFSET, 9);
        for (BhsFlyweight<?> h : new BhsFlyweight<?>[] {
            new TextRequestHeader().wrap(b),
            new DataOutHeader().wrap(b),
            new ScsiResponseHeader().wrap(b),
            new LoginRequestHeader().wrap(b)
        }) {
            assertSame(b, h.buffer());
            assertEquals(Opcode.TEXT_REQUEST.code(), h.opcode());
            assertTrue(h.immediate());
            assertTrue(h.finalBit());
            assertEquals(8, h.totalAhsLength());
            assertEquals(0x123456, h.dataSegmentLength());
            assertEquals(0x11223344, h.initiatorTaskTag());
        }
        TextRequestHeader text = new TextRequestHeader().wrap(b);
        assertEquals(7, text.cmdSN());
        assertEquals(9, text.expStatSN());
    }

    @Test
    void targetSettersWriteTheSharedOffsetsAndReturnTheConcreteHeader() {
        ByteBuf b = bhs();
        R2tHeader r2t = new R2tHeader().wrap(b).init();
        R2tHeader same = r2t.initiatorTaskTag(1)
                .statSN(2)
                .expCmdSN(3)
                .maxCmdSN(4)
                .lun(5L)
                .targetTransferTag(6)
                .r2tSN(7);
        assertSame(r2t, same);
        assertEquals(1, b.getInt(Bhs.INITIATOR_TASK_TAG_OFFSET));
        assertEquals(2, b.getInt(Bhs.STAT_SN_OFFSET));
        assertEquals(3, b.getInt(Bhs.EXP_CMD_SN_OFFSET));
        assertEquals(4, b.getInt(Bhs.MAX_CMD_SN_OFFSET));
        assertEquals(5L, b.getLong(Bhs.LUN_OFFSET));
        assertEquals(6, b.getInt(Bhs.TARGET_TRANSFER_TAG_OFFSET));
        assertEquals(0, b.readerIndex());
        assertEquals(Bhs.LENGTH, b.writerIndex());
    }

    @Test
    void finalBitSetterLeavesTheOtherFlags() {
        DataInHeader h =
                new DataInHeader().wrap(bhs()).init().statusPresent(true).underflow(true);
        h.finalBit(true);
        assertTrue(h.finalBit() && h.statusPresent() && h.underflow());
        h.finalBit(false);
        assertFalse(h.finalBit());
        assertTrue(h.statusPresent() && h.underflow());
        assertFalse(h.overflow());
    }

    @Test
    void statusHeadersShareStatusResidualAndTheOuBits() {
        ScsiResponseHeader response = new ScsiResponseHeader()
                .wrap(bhs())
                .init()
                .status(0x02)
                .overflow(true)
                .residualCount(512);
        DataInHeader dataIn = new DataInHeader()
                .wrap(bhs())
                .init()
                .status(0x02)
                .overflow(true)
                .residualCount(512);
        assertEquals(
                response.buffer().getByte(ScsiStatusBhsFlyweight.STATUS_OFFSET),
                dataIn.buffer().getByte(ScsiStatusBhsFlyweight.STATUS_OFFSET));
        assertEquals(
                response.buffer().getByte(Bhs.FLAGS_OFFSET) & 0x7f,
                dataIn.buffer().getByte(Bhs.FLAGS_OFFSET));
        assertEquals(512, response.buffer().getInt(ScsiStatusBhsFlyweight.RESIDUAL_COUNT_OFFSET));
        assertEquals(512, dataIn.residualCount());
    }

    @Test
    void rejectAndAsyncInitSetTheReservedItt() {
        assertEquals(Bhs.RESERVED_TAG, new RejectHeader().wrap(bhs()).init().initiatorTaskTag());
        assertEquals(
                Bhs.RESERVED_TAG, new AsyncMessageHeader().wrap(bhs()).init().initiatorTaskTag());
        assertEquals(Bhs.RESERVED_TAG, new DataInHeader().wrap(bhs()).init().targetTransferTag());
    }
}
