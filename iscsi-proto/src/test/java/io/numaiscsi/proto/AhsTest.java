package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class AhsTest {
    /** A 32-byte CDB: 16 bytes in the BHS, 16 in an Extended CDB AHS (AHSLength 17, padded to 20). */
    static ByteBuf extendedCdbAhs(int extraCdbBytes) {
        int total = (3 + extraCdbBytes + 1 + 3) & ~3;
        ByteBuf ahs = Unpooled.buffer(total + 8);
        ahs.writeShort(extraCdbBytes + 1);
        ahs.writeByte(Ahs.TYPE_EXTENDED_CDB);
        ahs.writeByte(0);
        for (int i = 0; i < extraCdbBytes; i++) {
            ahs.writeByte(0x10 + i);
        }
        ahs.writeZero(total - ahs.writerIndex());
        // followed by a Bidirectional Read Expected Data Length AHS
        ahs.writeShort(5)
                .writeByte(Ahs.TYPE_BIDI_READ_EXPECTED_DATA_LENGTH)
                .writeByte(0)
                .writeInt(65536);
        return ahs;
    }

    @Test
    void findsAndParsesSegments() {
        ByteBuf ahs = extendedCdbAhs(16);
        assertEquals(28, ahs.readableBytes());
        assertTrue(Ahs.valid(ahs));
        int cdb = Ahs.find(ahs, Ahs.TYPE_EXTENDED_CDB);
        assertEquals(0, cdb);
        assertEquals(16, Ahs.extendedCdbLength(ahs, cdb));
        assertEquals(20, Ahs.totalLength(ahs, cdb));
        assertEquals(0x10, ahs.getUnsignedByte(cdb + Ahs.EXTENDED_CDB_OFFSET));
        assertEquals(0x1f, ahs.getUnsignedByte(cdb + Ahs.EXTENDED_CDB_OFFSET + 15));
        int bidi = Ahs.find(ahs, Ahs.TYPE_BIDI_READ_EXPECTED_DATA_LENGTH);
        assertEquals(20, bidi);
        assertEquals(65536, Ahs.bidiReadExpectedDataLength(ahs, bidi));
        assertEquals(-1, Ahs.find(ahs, 3));
        assertEquals(-1, Ahs.find(null, 1));
        ahs.release();
    }

    @Test
    void oddCdbLengthIsPadded() {
        ByteBuf ahs = extendedCdbAhs(5); // 21-byte CDB: AHSLength 6, 12 bytes on the wire
        assertEquals(12, Ahs.totalLength(ahs, 0));
        assertEquals(5, Ahs.extendedCdbLength(ahs, 0));
        assertTrue(Ahs.valid(ahs));
        ahs.release();
    }

    @Test
    void malformed() {
        ByteBuf ahs =
                Unpooled.buffer(8).writeShort(40).writeByte(1).writeByte(0).writeInt(0);
        assertFalse(Ahs.valid(ahs));
        assertEquals(-1, Ahs.find(ahs, 1));
        ahs.release();
    }
}
