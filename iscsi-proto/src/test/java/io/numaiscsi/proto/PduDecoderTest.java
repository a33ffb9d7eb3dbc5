package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PduDecoderTest {
    private final TrackingAllocator alloc = new TrackingAllocator();
    private final PduDecoder decoder = new PduDecoder();
    private final PduEncoder encoder = new PduEncoder();

    @AfterEach
    void nothingLeaked() {
        decoder.reset();
        alloc.assertAllReleased();
    }

    /** A SCSI Command (WRITE) with optional AHS and immediate data; data is a pattern seeded by itt. */
    private ByteBuf scsiCommand(int itt, int dataLength, boolean withAhs) {
        ByteBuf bhs = alloc.buffer(48);
        bhs.writeZero(48);
        bhs.setByte(0, 0x01);
        bhs.setByte(1, 0xa1); // F, W, SIMPLE
        bhs.setLong(8, Lun.encode(3));
        bhs.setInt(16, itt);
        bhs.setInt(20, 65536);
        bhs.setInt(24, 77);
        bhs.setInt(28, 55);
        bhs.setByte(32, 0x2a);
        ByteBuf ahs = null;
        if (withAhs) {
            ByteBuf model = AhsTest.extendedCdbAhs(16);
            ahs = alloc.buffer(model.readableBytes()).writeBytes(model);
            model.release();
        }
        ByteBuf data = dataLength == 0 ? null : Wire.pattern(alloc, dataLength, itt);
        return encoder.encode(alloc, bhs, ahs, data);
    }

    private static void assertCommand(Pdu pdu, int itt, int dataLength, boolean withAhs) {
        assertSame(Opcode.SCSI_COMMAND, pdu.opcode());
        assertEquals(48, pdu.bhs().readableBytes());
        assertEquals(0, pdu.bhs().readerIndex());
        ScsiCommandHeader h = new ScsiCommandHeader().wrap(pdu.bhs());
        assertEquals(itt, h.initiatorTaskTag());
        assertEquals(77, h.cmdSN());
        assertEquals(dataLength, h.dataSegmentLength());
        assertEquals(0x2a, h.cdbOpcode());
        if (withAhs) {
            assertEquals(28, h.totalAhsLength());
            assertEquals(28, pdu.ahs().readableBytes());
            int cdb = Ahs.find(pdu.ahs(), Ahs.TYPE_EXTENDED_CDB);
            assertEquals(16, Ahs.extendedCdbLength(pdu.ahs(), cdb));
            assertEquals(0x1f, pdu.ahs().getUnsignedByte(cdb + Ahs.EXTENDED_CDB_OFFSET + 15));
        } else {
            assertNull(pdu.ahs());
        }
        if (dataLength == 0) {
            assertNull(pdu.data());
        } else {
            ByteBuf expected = Wire.pattern(UnpooledByteBufAllocator.DEFAULT, dataLength, itt);
            assertTrue(ByteBufUtil.equals(expected, pdu.data()), "data of itt " + itt);
            expected.release();
        }
        assertFalse(pdu.dataDigestError());
    }

    private void roundTrip(boolean headerDigest, boolean dataDigest, boolean byteAtATime) {
        encoder.digests(headerDigest, dataDigest);
        decoder.digests(headerDigest, dataDigest);
        int[] lengths = {0, 1, 2, 3, 4, 5, 7, 8, 100, 8192};
        for (boolean withAhs : new boolean[] {false, true}) {
            ByteBuf wire = Unpooled.compositeBuffer();
            for (int i = 0; i < lengths.length; i++) {
                ((CompositeByteBuf) wire).addComponent(true, scsiCommand(i, lengths[i], withAhs));
            }
            List<Pdu> pdus =
                    byteAtATime ? Wire.feedByteAtATime(decoder, wire, alloc) : Wire.feedAll(decoder, wire, alloc);
            assertEquals(lengths.length, pdus.size());
            for (int i = 0; i < lengths.length; i++) {
                assertCommand(pdus.get(i), i, lengths[i], withAhs);
                pdus.get(i).release();
            }
            assertNull(decoder.failure());
            assertEquals(PduDecoder.State.BHS, decoder.state());
        }
    }

    @Test
    void byteAtATimeWithoutDigests() {
        roundTrip(false, false, true);
    }

    @Test
    void byteAtATimeWithDigests() {
        roundTrip(true, true, true);
    }

    @Test
    void byteAtATimeHeaderDigestOnly() {
        roundTrip(true, false, true);
    }

    @Test
    void wholeBuffersWithAndWithoutDigests() {
        roundTrip(false, false, false);
        roundTrip(false, true, false);
        roundTrip(true, true, false);
    }

    @Test
    void dataTakenAsSliceWhenComplete() {
        TrackingAllocator inputAlloc = new TrackingAllocator();
        ByteBuf wire = scsiCommand(9, 4096, false);
        ByteBuf in = inputAlloc.buffer(wire.readableBytes()).writeBytes(wire);
        wire.release();
        int before = alloc.allocations();
        alloc.reset();
        Pdu pdu = decoder.decode(in, alloc);
        assertNotNull(pdu);
        assertEquals(1, alloc.allocations() - before, "only the BHS is allocated");
        assertEquals(48, alloc.largestRequest());
        in.setByte(48, 0x5a); // the input buffer and the data share memory
        assertEquals(0x5a, pdu.data().getUnsignedByte(0));
        in.release();
        assertEquals(4096, pdu.data().readableBytes());
        pdu.release();
        inputAlloc.assertAllReleased();
    }

    @Test
    void partialDataAccumulatedIntoOneExactBuffer() {
        ByteBuf wire = scsiCommand(4, 1000, false);
        ByteBuf first = wire.readRetainedSlice(300);
        assertNull(decoder.decode(first, alloc));
        assertFalse(first.isReadable());
        first.release();
        assertEquals(PduDecoder.State.DATA, decoder.state());
        Pdu pdu = decoder.decode(wire, alloc);
        assertNotNull(pdu);
        assertEquals(1000, pdu.data().capacity());
        assertCommand(pdu, 4, 1000, false);
        pdu.release();
        wire.release();
    }

    @Test
    void dataDigestErrorFlagsPduAndKeepsFraming() {
        encoder.digests(true, true);
        decoder.digests(true, true);
        ByteBuf bad = scsiCommand(1, 10, false);
        int dataStart = 48 + 4;
        bad.setByte(dataStart + 3, bad.getByte(dataStart + 3) ^ 0x01);
        ByteBuf badPadding = scsiCommand(2, 10, false);
        badPadding.setByte(dataStart + 11, 0x01); // padding byte 2 of 2: covered by the data digest
        ByteBuf good = scsiCommand(3, 10, false);
        ByteBuf wire = Unpooled.wrappedBuffer(bad, badPadding, good);
        List<Pdu> pdus = Wire.feedByteAtATime(decoder, wire, alloc);
        assertEquals(3, pdus.size());
        assertTrue(pdus.get(0).dataDigestError());
        assertEquals(1, pdus.get(0).initiatorTaskTag());
        assertTrue(pdus.get(1).dataDigestError());
        assertFalse(pdus.get(2).dataDigestError());
        assertNull(decoder.failure());
        pdus.forEach(Pdu::release);
    }

    @Test
    void headerDigestErrorFailsAndSwallowsInput() {
        encoder.digests(true, false);
        decoder.digests(true, false);
        ByteBuf bad = scsiCommand(1, 10, true);
        bad.setByte(17, 0x44); // ITT byte: header digest no longer matches
        ByteBuf next = scsiCommand(2, 0, false);
        ByteBuf wire = Unpooled.wrappedBuffer(bad, next);
        List<Pdu> pdus = Wire.feedByteAtATime(decoder, wire, alloc);
        assertTrue(pdus.isEmpty());
        assertEquals(PduFailure.HEADER_DIGEST_ERROR, decoder.failure());
        assertEquals(48, decoder.failedBhs().readableBytes());
        assertEquals(0x44, decoder.failedBhs().getUnsignedByte(17));
        assertEquals(PduDecoder.State.FAILED, decoder.state());
        decoder.reset();
        assertNull(decoder.failure());
        assertNull(decoder.failedBhs());
        pdus = Wire.feedAll(decoder, scsiCommand(5, 3, false), alloc);
        assertEquals(1, pdus.size());
        assertCommand(pdus.get(0), 5, 3, false);
        pdus.get(0).release();
    }

    @Test
    void oversizedDataSegmentRejectedBeforeAllocation() {
        decoder.maxRecvDataSegmentLength(16);
        ByteBuf wire = scsiCommand(1, 17, false);
        int before = alloc.allocations();
        alloc.reset();
        assertNull(decoder.decode(wire, alloc));
        assertEquals(PduFailure.DATA_SEGMENT_TOO_LONG, decoder.failure());
        assertEquals(48, wire.readerIndex(), "only the BHS was consumed");
        assertEquals(48, alloc.largestRequest(), "nothing but the BHS was allocated");
        assertEquals(1, alloc.allocations() - before);
        assertEquals(17, Bhs.dataSegmentLength(decoder.failedBhs()));
        assertNull(decoder.decode(wire, alloc));
        assertFalse(wire.isReadable(), "further input is discarded");
        wire.release();
    }

    @Test
    void limitIsInclusive() {
        decoder.maxRecvDataSegmentLength(16);
        List<Pdu> pdus = Wire.feedByteAtATime(decoder, scsiCommand(1, 16, false), alloc);
        assertEquals(1, pdus.size());
        pdus.get(0).release();
    }

    @Test
    void ahsOverLimitFails() {
        decoder.maxAhsLength(8);
        List<Pdu> pdus = Wire.feedByteAtATime(decoder, scsiCommand(1, 0, true), alloc);
        assertTrue(pdus.isEmpty());
        assertEquals(PduFailure.AHS_TOO_LONG, decoder.failure());
    }

    @Test
    void digestsSwitchedOnBetweenPdus() {
        ByteBuf plain = scsiCommand(1, 5, false);
        encoder.digests(true, true);
        ByteBuf digested = scsiCommand(2, 5, false);
        ByteBuf in = Unpooled.wrappedBuffer(plain, digested);
        Pdu first = decoder.decode(in, alloc);
        assertCommand(first, 1, 5, false);
        decoder.digests(true, true); // what the session does after login
        Pdu second = decoder.decode(in, alloc);
        assertCommand(second, 2, 5, false);
        assertFalse(in.isReadable());
        first.release();
        second.release();
        in.release();
    }

    @Test
    void reservedOpcodeStillFramed() {
        ByteBuf bhs = alloc.buffer(48).writeZero(48);
        bhs.setByte(0, 0x1c);
        ByteBuf wire = encoder.encode(alloc, bhs, null, null);
        List<Pdu> pdus = Wire.feedAll(decoder, wire, alloc);
        assertEquals(0x1c, pdus.get(0).opcodeCode());
        assertNull(pdus.get(0).opcode());
        pdus.get(0).release();
    }

    @Test
    void resetMidPduReleasesPartialBuffers() {
        ByteBuf wire = scsiCommand(1, 100, true);
        ByteBuf part = wire.readRetainedSlice(48 + 28 + 50);
        ByteBuf copy = alloc.buffer(part.readableBytes());
        // feed byte-wise so that the data is accumulated (not sliced)
        while (part.isReadable()) {
            copy.clear().writeByte(part.readByte());
            assertNull(decoder.decode(copy, alloc));
        }
        assertEquals(PduDecoder.State.DATA, decoder.state());
        decoder.reset();
        assertEquals(PduDecoder.State.BHS, decoder.state());
        copy.release();
        part.release();
        wire.release();
    }

    @Test
    void releaseIsIdempotentUntilReuse() {
        List<Pdu> pdus = Wire.feedAll(decoder, scsiCommand(1, 4, false), alloc);
        Pdu pdu = pdus.get(0);
        ByteBuf data = pdu.takeData();
        pdu.release();
        pdu.release();
        assertEquals(1, data.refCnt(), "taken data is the caller's");
        data.release();
    }
}
