package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestPduTest {

    @Test
    void loginRequestLayout() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("SessionType", "Normal"); // 19 bytes with the NUL
        byte[] b = TestPdu.of(TestPdu.LOGIN_REQUEST)
                .immediate()
                .flags(TestPdu.TRANSIT | 1 << 2 | 3)
                .itt(0x01020304)
                .int32(24, 7)
                .text(keys)
                .toBytes();
        assertEquals(48 + 20, b.length, "data padded to 4 bytes");
        assertEquals(0x43, b[0] & 0xff, "I bit + opcode 0x03");
        assertEquals(0x87, b[1] & 0xff, "T, CSG=1, NSG=3");
        assertEquals(19, b[7] & 0xff, "DataSegmentLength excludes padding");
        assertEquals(0x01, b[16]);
        assertEquals(0x04, b[19]);
        assertEquals(7, b[27]);
        assertEquals('S', b[48]);
        assertEquals(0, b[48 + 18], "key terminated by NUL");
        assertEquals(0, b[48 + 19], "pad byte");
    }

    @Test
    void declaredLengthCanExceedTheBytesSent() {
        TestPdu p = TestPdu.of(TestPdu.NOP_OUT).dataSegmentLength(0xffffff);
        assertEquals(0xffffff, p.dataSegmentLength());
        assertEquals(48, p.toBytes().length);
    }

    @Test
    void readsReceivedFieldsAndTextKeys() {
        byte[] bhs = TestPdu.of(TestPdu.LOGIN_RESPONSE)
                .flags(0x87)
                .int32(24, 0xfffffffe)
                .byteAt(36, 2)
                .bhs;
        TestPdu p = TestPdu.received(bhs, "MaxRecvDataSegmentLength=65536\0HeaderDigest=None\0".getBytes());
        assertEquals(TestPdu.LOGIN_RESPONSE, p.opcode());
        assertEquals(0x87, p.flags());
        assertEquals(0xfffffffe, p.int32(24));
        assertEquals(2, p.byteAt(36));
        assertEquals(Map.of("MaxRecvDataSegmentLength", "65536", "HeaderDigest", "None"), p.textKeys());
    }

    @Test
    void lunUsesPeripheralAddressing() {
        byte[] b = TestPdu.of(TestPdu.SCSI_COMMAND).lun(1).toBytes();
        assertEquals(0, b[8]);
        assertEquals(1, b[9]);
    }

    @Test
    void digestsGoLeastSignificantByteFirst() {
        // RFC 7143 Appendix A.4: 32 bytes of zeroes give aa 36 91 8a on the wire
        byte[] wire = new byte[4];
        TestPdu.putDigest(wire, 0, TestPdu.crc32c(new byte[32], 0, 32));
        assertEquals(
                List.of(0xaa, 0x36, 0x91, 0x8a),
                List.of(wire[0] & 0xff, wire[1] & 0xff, wire[2] & 0xff, wire[3] & 0xff));
        assertEquals(TestPdu.crc32c(new byte[32], 0, 32), TestPdu.digestAt(wire, 0));
    }

    @Test
    void headerDigestOfTheRfcRead10Bhs() {
        int[] read10 = {
            0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
            0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
        };
        TestPdu p = TestPdu.of(0);
        for (int i = 0; i < read10.length; i++) {
            p.byteAt(i, read10[i]);
        }
        byte[] b = p.toBytes(true, true);
        assertEquals(52, b.length, "header digest only: no data segment, so no data digest");
        assertEquals(0x56, b[48] & 0xff);
        assertEquals(0x3a, b[49] & 0xff);
        assertEquals(0x96, b[50] & 0xff);
        assertEquals(0xd9, b[51] & 0xff);
    }

    @Test
    void dataDigestCoversThePadding() {
        byte[] b = TestPdu.of(TestPdu.NOP_OUT).data(new byte[] {1, 2, 3, 4, 5}).toBytes(false, true);
        assertEquals(48 + 8 + 4, b.length);
        assertEquals(TestPdu.crc32c(new byte[] {1, 2, 3, 4, 5, 0, 0, 0}, 0, 8), TestPdu.digestAt(b, 56));
    }
}
