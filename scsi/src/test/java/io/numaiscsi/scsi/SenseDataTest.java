package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SenseDataTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    @Test
    void fixedFormatWithoutInformation() {
        byte[] b = new byte[SenseData.MAX_LENGTH];
        int n = SenseData.encode(b, SenseReason.INVALID_FIELD_IN_CDB, false, 0, false);
        assertEquals(18, n);
        assertArrayEquals(hex("70 00 05 00000000 0a 00000000 24 00 00 000000"), Arrays.copyOf(b, n));
    }

    @Test
    void fixedFormatWithInformationSetsValid() {
        byte[] b = new byte[SenseData.MAX_LENGTH];
        int n = SenseData.encode(b, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, false, 0x1234, true);
        assertArrayEquals(hex("f0 00 0e 00001234 0a 00000000 1d 00 00 000000"), Arrays.copyOf(b, n));
    }

    @Test
    void fixedFormatDropsValidWhenInformationDoesNotFit() {
        byte[] b = new byte[SenseData.MAX_LENGTH];
        SenseData.encode(b, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, false, 1L << 33, true);
        assertEquals(0x70, b[0]);
    }

    @Test
    void parameterListFieldPointerWithBit() {
        byte[] b = new byte[SenseData.MAX_LENGTH];
        int n = SenseData.encodeKeySpecific(
                b,
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                false,
                0,
                false,
                SenseData.parameterFieldPointer(0x11, 7));
        assertArrayEquals(hex("70 00 05 00000000 0a 00000000 26 00 00 8f0011"), Arrays.copyOf(b, n));
        n = SenseData.encodeKeySpecific(
                b,
                SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE,
                true,
                0,
                false,
                SenseData.parameterFieldPointer(0x30, -1));
        assertArrayEquals(hex("72 0a 0d 02 000000 08 02 06 0000 800030 00"), Arrays.copyOf(b, n));
    }

    @Test
    void descriptorFormat() {
        byte[] b = new byte[SenseData.MAX_LENGTH];
        int n = SenseData.encode(b, SenseReason.LBA_OUT_OF_RANGE, true, 0, false);
        assertArrayEquals(hex("72 05 21 00 000000 00"), Arrays.copyOf(b, n));
        n = SenseData.encode(b, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, true, 0x1_0000_0002L, true);
        assertArrayEquals(hex("72 0e 1d 00 000000 0c 00 0a 80 00 0000000100000002"), Arrays.copyOf(b, n));
    }

    @ParameterizedTest
    @CsvSource({
        "INVALID_COMMAND_OPERATION_CODE, 5, 0x2000",
        "LBA_OUT_OF_RANGE,               5, 0x2100",
        "LOGICAL_UNIT_NOT_SUPPORTED,     5, 0x2500",
        "SAVING_PARAMETERS_NOT_SUPPORTED,5, 0x3900",
        "BUS_DEVICE_RESET_FUNCTION_OCCURRED, 6, 0x2903",
        "RESERVATIONS_PREEMPTED,         6, 0x2A03",
        "REGISTRATIONS_PREEMPTED,        6, 0x2A05",
        "SPACE_ALLOCATION_FAILED_WRITE_PROTECT, 7, 0x2707",
        "UNRECOVERED_READ_ERROR,         3, 0x1100",
    })
    void bothFormatsCarryTheSameCodes(SenseReason r, int key, String ascAscq) {
        int expected = Integer.decode(ascAscq);
        for (boolean descriptor : new boolean[] {false, true}) {
            byte[] b = new byte[SenseData.MAX_LENGTH];
            SenseData.encode(b, r, descriptor, 0, false);
            assertEquals(key, SenseData.senseKey(b));
            assertEquals(expected, SenseData.ascAscq(b));
        }
    }

    @Test
    void statusOnlyReasonsHaveNoSense() {
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, SenseReason.RESERVATION_CONFLICT.status());
        assertEquals(false, SenseReason.RESERVATION_CONFLICT.hasSense());
        assertEquals(ScsiStatus.CHECK_CONDITION, SenseReason.INVALID_FIELD_IN_CDB.status());
    }
}
