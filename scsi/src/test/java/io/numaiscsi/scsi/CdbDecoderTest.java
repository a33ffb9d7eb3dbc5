package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Case table: CDB -> bound command, LBA, blocks, FUA, data-out length; or the sense reason. */
class CdbDecoderTest {
    private static final LogicalUnit LU =
            new LogicalUnit(0, LunIdentity.derive("iqn.t", 0, null), new RamBlockDevice(1 << 20, 512)); // 2048 blocks

    private static ScsiTask task(String hex) {
        byte[] cdb = HexFormat.of().parseHex(hex.replace(" ", ""));
        ScsiTask t = new ScsiTask(x -> {});
        t.init(Harness.A, 0, Unpooled.wrappedBuffer(cdb), 0, cdb.length, 0, false, false);
        return t;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                // cdb                                         | kind              | lba  | blocks | fua   | dataOut
                "08 00 00 10 04 00                             | READ              | 16   | 4      | false | 0",
                "08 00 00 10 00 00                             | READ              | 16   | 256    | false | 0",
                "0a 00 07 00 00 00                             | WRITE             | 1792 | 256    | false | 131072",
                "28 08 00 00 00 20 00 00 08 00                 | READ              | 32   | 8      | true  | 0",
                "28 10 00 00 00 20 00 00 00 00                 | READ              | 32   | 0      | false | 0",
                "2a 00 00 00 07 ff 00 00 01 00                 | WRITE             | 2047 | 1      | false | 512",
                "2e 00 00 00 00 00 00 00 02 00                 | WRITE_AND_VERIFY  | 0    | 2      | false | 1024",
                "a8 00 00 00 00 01 00 00 00 03 00 00           | READ              | 1    | 3      | false | 0",
                "aa 08 00 00 00 01 00 00 00 03 00 00           | WRITE             | 1    | 3      | true  | 1536",
                "88 00 00 00 00 00 00 00 00 05 00 00 00 01 00 00 | READ            | 5    | 1      | false | 0",
                "8a 08 00 00 00 00 00 00 00 05 00 00 00 01 00 00 | WRITE           | 5    | 1      | true  | 512",
                "2f 02 00 00 00 00 00 00 02 00                 | VERIFY            | 0    | 2      | false | 1024",
                "2f 00 00 00 00 00 00 00 02 00                 | VERIFY            | 0    | 2      | false | 0",
                "89 00 00 00 00 00 00 00 00 07 00 00 00 02 00 00 | COMPARE_AND_WRITE | 7  | 2      | false | 2048",
                "41 08 00 00 00 00 00 00 10 00                 | WRITE_SAME        | 0    | 16     | false | 512",
                "93 01 00 00 00 00 00 00 00 00 00 00 00 10 00 00 | WRITE_SAME      | 0    | 16     | false | 0",
                "35 00 00 00 00 00 00 00 00 00                 | SYNCHRONIZE_CACHE | 0    | 0      | false | 0",
                "42 00 00 00 00 00 00 00 18 00                 | UNMAP             | 0    | 0      | false | 24",
                "9e 12 00 00 00 00 00 00 07 ff 00 00 00 20 00 00 | GET_LBA_STATUS  | 2047 | 0      | false | 0",
                "00 00 00 00 00 00                             | TEST_UNIT_READY   | 0    | 0      | false | 0",
                "15 10 00 00 18 00                             | MODE_SELECT       | 0    | 0      | false | 24",
                "5f 00 00 00 00 00 00 00 18 00                 | PERSISTENT_RESERVE_OUT | 0 | 0    | false | 24",
            })
    void decodes(String cdb, CommandKind kind, long lba, long blocks, boolean fua, int dataOut) {
        ScsiTask t = task(cdb);
        assertNull(CdbDecoder.decode(t, LU));
        assertEquals(kind, t.kind);
        assertEquals(lba, t.lba);
        assertEquals(blocks, t.blocks);
        assertEquals(fua, t.fua);
        assertEquals(dataOut, t.dataOutLength());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "28 00 00 00 08 00 00 00 01 00                 | LBA_OUT_OF_RANGE",
                "28 00 00 00 07 ff 00 00 02 00                 | LBA_OUT_OF_RANGE",
                "28 00 00 00 08 01 00 00 00 00                 | LBA_OUT_OF_RANGE",
                "28 00 ff ff ff ff 00 00 00 00                 | LBA_OUT_OF_RANGE",
                "88 00 ff ff ff ff ff ff ff ff 00 00 00 02 00 00 | LBA_OUT_OF_RANGE",
                "88 00 00 00 00 00 00 00 00 00 ff ff ff ff 00 00 | LBA_OUT_OF_RANGE",
                "08 00 08 00 01 00                             | LBA_OUT_OF_RANGE",
                "28 e0 00 00 00 00 00 00 01 00                 | INVALID_FIELD_IN_CDB",
                "2a 20 00 00 00 00 00 00 01 00                 | INVALID_FIELD_IN_CDB",
                "2f 04 00 00 00 00 00 00 01 00                 | INVALID_FIELD_IN_CDB",
                "2f 06 00 00 00 00 00 00 01 00                 | INVALID_FIELD_IN_CDB",
                "41 00 00 00 08 01 00 00 00 00                 | LBA_OUT_OF_RANGE",
                "8b 20 00 00 00 00 00 00 00 00 00 00 00 01 00 00 | INVALID_FIELD_IN_CDB",
                "8b 00 00 00 00 00 00 00 07 ff 00 00 00 02 00 00 | LBA_OUT_OF_RANGE",
                "9c 40 00 00 00 00 00 00 00 00 00 00 00 01 00 00 | INVALID_FIELD_IN_CDB",
                "9c 00 80 00 00 00 00 00 00 00 00 00 00 01 00 00 | LBA_OUT_OF_RANGE",
                "9c 00 00 00 00 00 00 00 07 ff 00 00 00 02 00 00 | LBA_OUT_OF_RANGE",
                "41 10 00 00 00 00 00 00 01 00                 | INVALID_FIELD_IN_CDB",
                "89 00 00 00 00 00 00 00 00 00 00 00 00 ff 00 00 | INVALID_FIELD_IN_CDB",
                "9e 12 00 00 00 00 00 00 08 00 00 00 00 20 00 00 | LBA_OUT_OF_RANGE",
                "9e 1f 00 00 00 00 00 00 00 00 00 00 00 20 00 00 | INVALID_FIELD_IN_CDB",
                "25 00 00 00 00 01 00 00 00 00                 | INVALID_FIELD_IN_CDB",
                "12 02 00 00 ff 00                             | INVALID_FIELD_IN_CDB",
                "12 00 80 00 ff 00                             | INVALID_FIELD_IN_CDB",
                "a0 00 00 00 00 00 00 00 00 08 00 00           | INVALID_FIELD_IN_CDB",
                "a3 0c 04 00 00 00 00 00 01 00 00 00           | INVALID_FIELD_IN_CDB",
                "a3 0a 00 00 00 00 00 00 01 00 00 00           | INVALID_FIELD_IN_CDB",
                "15 00 00 00 18 00                             | INVALID_FIELD_IN_CDB",
                "15 01 00 00 18 00                             | INVALID_FIELD_IN_CDB",
                "16 10 00 00 00 00                             | INVALID_FIELD_IN_CDB",
                "5e 04 00 00 00 00 00 10 00 00                 | INVALID_FIELD_IN_CDB",
                "5f 08 00 00 00 00 00 00 28 00                 | INVALID_FIELD_IN_CDB",
                "5f 00 00 00 00 00 00 00 10 00                 | PARAMETER_LIST_LENGTH_ERROR",
                "42 00 00 00 00 00 00 00 07 00                 | PARAMETER_LIST_LENGTH_ERROR",
                "00 00 00 00 00 04                             | INVALID_FIELD_IN_CDB",
                "e0 00 00 00 00 00                             | INVALID_COMMAND_OPERATION_CODE",
                "7f 00 00 00 00 00 00 00 00 00                 | INVALID_COMMAND_OPERATION_CODE",
                "a1 00 00 00 00 00 00 00 00 00 00 00           | INVALID_COMMAND_OPERATION_CODE",
                "04 00 00 00 00 00                             | INVALID_COMMAND_OPERATION_CODE",
            })
    void rejects(String cdb, SenseReason expected) {
        assertEquals(expected, CdbDecoder.decode(task(cdb), LU));
    }

    @ParameterizedTest
    @CsvSource({"0x00,6", "0x1f,6", "0x28,10", "0x5f,10", "0x88,16", "0xa0,12", "0x7f,-1", "0xc0,-1"})
    void cdbLengthFollowsGroupCode(String opcode, int length) {
        assertEquals(length, Cdb.lengthOf(Integer.decode(opcode)));
    }
}
