package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TransportIdTest {
    /** A TransportID with the given first byte and text, NUL terminated, padded to 4. */
    private static byte[] id(int first, String text) {
        byte[] name = text.getBytes(StandardCharsets.UTF_8);
        int padded = (name.length + 1 + 3) & ~3;
        byte[] id = new byte[4 + padded];
        id[0] = (byte) first;
        id[3] = (byte) padded;
        System.arraycopy(name, 0, id, 4, name.length);
        return id;
    }

    @Test
    void encodesFormat01AndDecodesItBack() {
        byte[] id = TransportId.encode(B);
        assertEquals(0x45, id[0] & 0xFF, "format 01b, iSCSI");
        assertEquals(0, id.length % 4);
        assertEquals(B, TransportId.decodePort(id, 0, id.length, A));
    }

    @Test
    void decodesWhatSgPersistSends() {
        byte[] id = id(0x45, "IQN.1994-05.com.redhat:Beta,I,0x23D000000002");
        assertEquals(B, TransportId.decodePort(id, 0, id.length, A), "names and the separator in any case");
    }

    @Test
    void refusesWhatNamesNoInitiatorPort() {
        String port = B.initiatorPortName();
        byte[] device = id(0x05, B.initiatorName());
        assertNull(TransportId.decodePort(device, 0, device.length, A), "format 00b: a device, no ISID");
        byte[] fc = id(0x40, port);
        assertNull(TransportId.decodePort(fc, 0, fc.length, A), "protocol 0 (Fibre Channel)");
        byte[] noIsid = id(0x45, B.initiatorName() + ",i,0x");
        assertNull(TransportId.decodePort(noIsid, 0, noIsid.length, A));
        byte[] badIsid = id(0x45, B.initiatorName() + ",i,0x12345g");
        assertNull(TransportId.decodePort(badIsid, 0, badIsid.length, A));
        byte[] longIsid = id(0x45, B.initiatorName() + ",i,0x1234567890abc");
        assertNull(TransportId.decodePort(longIsid, 0, longIsid.length, A), "ISIDs are 48 bits");
        byte[] good = id(0x45, port);
        assertNull(TransportId.decodePort(good, 0, good.length - 4, A), "shorter than its ADDITIONAL LENGTH");
        byte[] noNul = good.clone();
        Arrays.fill(noNul, 4, noNul.length, (byte) 'a');
        assertNull(TransportId.decodePort(noNul, 0, noNul.length, A), "no NUL");
        byte[] tiny = id(0x45, "a,i,0x1");
        assertNull(TransportId.decodePort(tiny, 0, tiny.length, A), "under 24 bytes");
    }
}
