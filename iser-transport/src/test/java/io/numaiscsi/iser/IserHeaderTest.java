package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IserHeaderTest {

    @ParameterizedTest(name = "byte 0 = 0x{0} -> {1}, WSV {2}, RSV {3}")
    @CsvSource({
        "10, CONTROL, false, false",
        "18, CONTROL, true, false",
        "14, CONTROL, false, true",
        "1c, CONTROL, true, true",
        "20, HELLO, false, false",
        "30, HELLO_REPLY, false, false",
        "31, HELLO_REPLY, false, false",
        "00, INVALID, false, false",
        "f0, INVALID, false, false",
    })
    void firstByteTable(String hex, IserHeader.Kind kind, boolean wsv, boolean rsv) {
        ByteBuffer b = ByteBuffer.allocate(IserHeader.LENGTH + 4);
        b.put(4, (byte) Integer.parseInt(hex, 16));
        assertEquals(kind, IserHeader.kind(b, 4));
        assertEquals(wsv, IserHeader.writeStagValid(b, 4));
        assertEquals(rsv, IserHeader.readStagValid(b, 4));
    }

    @Test
    void fieldsAreBigEndianAtRfcOffsets() {
        ByteBuffer b = ByteBuffer.allocate(IserHeader.LENGTH);
        IserHeader.put(
                b,
                0,
                IserHeader.OPCODE_CONTROL,
                true,
                0x11223344,
                0x0102030405060708L,
                true,
                0x55667788,
                0x1112131415161718L);
        byte[] a = b.array();
        assertEquals(0x1c, a[0] & 0xff);
        assertEquals(0, a[1] | a[2] | a[3]);
        assertEquals(0x11, a[4] & 0xff);
        assertEquals(0x44, a[7] & 0xff);
        assertEquals(0x01, a[8] & 0xff);
        assertEquals(0x08, a[15] & 0xff);
        assertEquals(0x55, a[16] & 0xff);
        assertEquals(0x11, a[20] & 0xff);
        assertEquals(0x18, a[27] & 0xff);
        assertEquals(0x11223344, IserHeader.writeStag(b, 0));
        assertEquals(0x0102030405060708L, IserHeader.writeBaseOffset(b, 0));
        assertEquals(0x55667788, IserHeader.readStag(b, 0));
        assertEquals(0x1112131415161718L, IserHeader.readBaseOffset(b, 0));
    }

    @Test
    void targetControlHeaderAdvertisesNothing() {
        ByteBuffer b = ByteBuffer.allocate(64);
        for (int i = 0; i < 64; i++) {
            b.put(i, (byte) 0xff);
        }
        IserHeader.putControl(b, 8);
        assertEquals(0x10, b.get(8) & 0xff);
        for (int i = 9; i < 8 + IserHeader.LENGTH; i++) {
            assertEquals(0, b.get(i), "byte " + (i - 8));
        }
        assertEquals((byte) 0xff, b.get(7), "nothing before the header is touched");
        assertEquals((byte) 0xff, b.get(8 + IserHeader.LENGTH), "nor after it");
        assertFalse(IserHeader.writeStagValid(b, 8));
        assertFalse(IserHeader.readStagValid(b, 8));
    }

    @ParameterizedTest(name = "flags 0x{0}: zero-based {1}, send with invalidate {2}")
    @CsvSource({
        "00, true, true",
        "80, false, true",
        "40, true, false",
        "c0, false, false",
    })
    void cmPrivateDataFlags(String hex, boolean zeroBased, boolean sendWithInvalidate) {
        ByteBuffer b = ByteBuffer.allocate(IserCmHeader.LENGTH);
        b.put(0, (byte) Integer.parseInt(hex, 16));
        IserCmHeader h = IserCmHeader.parse(b, 0, IserCmHeader.LENGTH);
        assertEquals(zeroBased, h.zeroBasedAddresses());
        assertEquals(sendWithInvalidate, h.sendWithInvalidate());
    }

    @Test
    void missingCmPrivateDataMeansNoRestrictions() {
        IserCmHeader h = IserCmHeader.parse(null, 0, 0);
        assertTrue(h.zeroBasedAddresses());
        assertTrue(h.sendWithInvalidate());
    }

    @Test
    void acceptPrivateDataSaysNeitherZeroBasedAddressingNorSendWithInvalidateIsUsed() {
        ByteBuffer b = ByteBuffer.allocate(IserCmHeader.LENGTH);
        IserCmHeader.putAccept(b, 0);
        assertEquals(0xc0, b.get(0) & 0xff);
        assertFalse(IserCmHeader.parse(b, 0, 4).zeroBasedAddresses());
        assertFalse(IserCmHeader.parse(b, 0, 4).sendWithInvalidate());
    }
}
