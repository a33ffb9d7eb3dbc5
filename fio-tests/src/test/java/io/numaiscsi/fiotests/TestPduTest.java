package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestPduTest {

    @Test
    void loginRequestLayout() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("SessionType", "Normal"); // 19 bytes with the NUL
        byte[] b = TestPdu.of(TestPdu.LOGIN_REQUEST).immediate().flags(TestPdu.TRANSIT | 1 << 2 | 3)
                .itt(0x01020304).int32(24, 7).text(keys).toBytes();
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
        byte[] bhs = TestPdu.of(TestPdu.LOGIN_RESPONSE).flags(0x87).int32(24, 0xfffffffe).byteAt(36, 2).bhs;
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
}
