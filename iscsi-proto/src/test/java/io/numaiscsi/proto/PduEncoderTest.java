package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PduEncoderTest {
    private final TrackingAllocator alloc = new TrackingAllocator();
    private final PduEncoder encoder = new PduEncoder();

    @AfterEach
    void nothingLeaked() {
        alloc.assertAllReleased();
    }

    private ByteBuf dataIn() {
        ByteBuf bhs = alloc.buffer(48);
        new DataInHeader().wrap(bhs).init().initiatorTaskTag(7).finalBit(true);
        return bhs;
    }

    @Test
    void layoutWithDigestsAndPadding() {
        encoder.digests(true, true);
        ByteBuf data = Wire.pattern(alloc, 5, 1);
        ByteBuf ahs = alloc.buffer(8).writeShort(5).writeByte(2).writeByte(0).writeInt(99);
        ByteBuf wire = encoder.encode(alloc, dataIn(), ahs, data);
        assertEquals(48 + 8 + 4 + 5 + 3 + 4, wire.readableBytes());
        assertEquals(2, wire.getUnsignedByte(4), "TotalAHSLength in words");
        assertEquals(5, wire.getUnsignedMedium(5));
        assertEquals(Crc32c.compute(wire, 0, 56), wire.getIntLE(56), "header digest over BHS+AHS, LSB first");
        assertEquals(1, wire.getUnsignedByte(60));
        for (int i = 65; i < 68; i++) {
            assertEquals(0, wire.getByte(i), "padding is zero");
        }
        assertEquals(Crc32c.compute(wire, 60, 8), wire.getIntLE(68), "data digest covers data and padding");
        wire.release();
    }

    /** The parts {@code encodeTo} hands out, in order, are exactly the bytes of {@code encode}'s one buffer. */
    @ParameterizedTest
    @CsvSource({"0,false", "5,false", "8,false", "5,true", "4096,true"})
    void partsAreTheSameBytesAsTheOneBuffer(int dataLength, boolean digests) {
        encoder.digests(digests, digests);
        ByteBuf whole =
                encoder.encode(alloc, dataIn(), null, dataLength == 0 ? null : Wire.pattern(alloc, dataLength, 4));
        List<ByteBuf> parts = new ArrayList<>();
        encoder.encodeTo(
                alloc, dataIn(), null, dataLength == 0 ? null : Wire.pattern(alloc, dataLength, 4), parts::add);
        assertEquals(dataLength == 0 ? 1 : dataLength % 4 == 0 && !digests ? 2 : 3, parts.size());
        ByteBuf joined = alloc.buffer(whole.readableBytes());
        for (ByteBuf part : parts) {
            joined.writeBytes(part);
            part.release();
        }
        assertEquals(ByteBufUtil.hexDump(whole), ByteBufUtil.hexDump(joined));
        whole.release();
        joined.release();
    }

    @Test
    void dataIsNotCopied() {
        ByteBuf data = Wire.pattern(alloc, 4096, 3);
        ByteBuf view = data.retainedDuplicate();
        alloc.reset();
        ByteBuf wire = encoder.encode(alloc, dataIn(), null, data);
        assertTrue(wire instanceof CompositeByteBuf || wire.unwrap() instanceof CompositeByteBuf);
        assertTrue(alloc.largestRequest() < 4096, "no buffer as large as the data was allocated");
        view.setByte(0, 0x77);
        assertEquals(0x77, wire.getUnsignedByte(48));
        view.release();
        wire.release();
    }

    @Test
    void noDataNoDigestIsJustTheHeader() {
        ByteBuf wire = encoder.encode(alloc, dataIn(), null, null);
        assertEquals(48, wire.readableBytes());
        assertEquals(0, wire.getUnsignedMedium(5));
        assertEquals(0x25, wire.getUnsignedByte(0));
        wire.release();
    }

    @Test
    void emptyDataHasNoDataDigest() {
        encoder.digests(true, true);
        ByteBuf wire = encoder.encode(alloc, dataIn(), null, alloc.buffer(0));
        assertEquals(52, wire.readableBytes());
        wire.release();
    }

    @Test
    void alignedDataHasNoPadding() {
        encoder.digests(false, true);
        ByteBuf wire = encoder.encode(alloc, dataIn(), null, Wire.pattern(alloc, 8, 0));
        assertEquals(48 + 8 + 4, wire.readableBytes());
        wire.release();
    }

    @Test
    void misalignedAhsIsABugAndReleasesEverything() {
        ByteBuf ahs = alloc.buffer(5).writeZero(5);
        ByteBuf data = alloc.buffer(4).writeInt(1);
        assertThrows(IllegalArgumentException.class, () -> encoder.encode(alloc, dataIn(), ahs, data));
        assertFalse(ahs.refCnt() > 0 || data.refCnt() > 0);
    }
}
