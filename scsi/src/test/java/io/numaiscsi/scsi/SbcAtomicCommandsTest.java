package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** ORWRITE, WRITE ATOMIC (16) and READ DEFECT DATA over a RAM unit. */
class SbcAtomicCommandsTest {
    private static final long BLOCKS = (8L << 20) / 512;
    private final Harness h = new Harness();

    private static byte[] filled(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private static byte[] orWrite(long lba, int blocks, int flags) {
        return cdb(String.format("8b %02x %016x %08x 00 00", flags, lba, blocks));
    }

    private static byte[] writeAtomic(long lba, int boundary, int blocks, int flags) {
        return cdb(String.format("9c %02x %016x %04x %04x 00 00", flags, lba, boundary, blocks));
    }

    @Test
    void orWriteOrsTheDataIntoTheMedium() {
        h.good(A, 0, write10(10, 3), filled(3 * 512, 0xA5));
        h.good(A, 0, orWrite(10, 2, 0), filled(2 * 512, 0x5A));
        byte[] back = h.good(A, 0, read10(10, 3), null);
        assertArrayEquals(filled(1024, 0xFF), Arrays.copyOfRange(back, 0, 1024));
        assertArrayEquals(filled(512, 0xA5), Arrays.copyOfRange(back, 1024, 1536), "the block after is untouched");
        byte[] mixed = pattern(512, 7);
        h.good(A, 0, write10(20, 1), new byte[512]);
        h.good(A, 0, orWrite(20, 1, 0x18), mixed); // DPO and FUA are accepted (DPOFUA is set in MODE SENSE)
        assertArrayEquals(mixed, h.good(A, 0, read10(20, 1), null));
    }

    @Test
    void orWriteChecksItsFields() {
        h.good(A, 0, orWrite(0, 0, 0), null);
        h.good(A, 0, orWrite(BLOCKS, 0, 0), null);
        h.check(A, 0, orWrite(BLOCKS + 1, 0, 0), null, SenseReason.LBA_OUT_OF_RANGE);
        h.check(A, 0, orWrite(BLOCKS - 1, 2, 0), filled(1024, 1), SenseReason.LBA_OUT_OF_RANGE);
        h.check(A, 0, orWrite(0x8000_0000_0000_0000L, 1, 0), filled(512, 1), SenseReason.LBA_OUT_OF_RANGE);
        for (int orProtect = 1; orProtect < 8; orProtect++) {
            h.check(A, 0, orWrite(0, 1, orProtect << 5), filled(512, 1), SenseReason.INVALID_FIELD_IN_CDB);
        }
    }

    @Test
    void writeAtomicWritesTheWholeRange() {
        byte[] data = pattern(256 * 512, 3);
        h.good(A, 0, writeAtomic(BLOCKS - 256, 0, 256, 0x08), data);
        assertArrayEquals(data, h.good(A, 0, cdb(String.format("88 00 %016x 00000100 00 00", BLOCKS - 256)), null));
        h.good(A, 0, writeAtomic(5, 1, 2, 0), pattern(1024, 4)); // a boundary within the maximum boundary size
        assertArrayEquals(pattern(1024, 4), h.good(A, 0, read10(5, 2), null));
    }

    @Test
    void writeAtomicChecksRangeBeforeLength() {
        int max = (1 << 20) / 512;
        h.good(A, 0, writeAtomic(0, 0, 0, 0), new byte[0]); // libiscsi sends EDTL 0
        h.check(A, 0, writeAtomic(BLOCKS + 1, 0, 0, 0), null, SenseReason.LBA_OUT_OF_RANGE);
        h.check(A, 0, writeAtomic(-1L, 0, 0, 0), null, SenseReason.LBA_OUT_OF_RANGE);
        // beyond the end and beyond the maximum atomic length: the range error wins (libiscsi WriteAtomic16.BeyondEol)
        h.check(A, 0, writeAtomic(BLOCKS - 1, 0, max + 1, 0), filled((max + 1) * 512, 1), SenseReason.LBA_OUT_OF_RANGE);
        h.check(A, 0, writeAtomic(0, 0, max + 1, 0), filled((max + 1) * 512, 1), SenseReason.INVALID_FIELD_IN_CDB);
        h.check(A, 0, writeAtomic(0, max + 1, 1, 0), filled(512, 1), SenseReason.INVALID_FIELD_IN_CDB);
        for (int wrProtect = 1; wrProtect < 8; wrProtect++) {
            h.check(A, 0, writeAtomic(0, 0, 1, wrProtect << 5), filled(512, 1), SenseReason.INVALID_FIELD_IN_CDB);
        }
    }

    @Test
    void writeAtomicWithShortDataOutWritesNothing() {
        h.good(A, 0, write10(30, 2), filled(1024, 9));
        h.check(A, 0, writeAtomic(30, 0, 2, 0), filled(512, 1), SenseReason.INVALID_FIELD_IN_CDB);
        assertArrayEquals(filled(1024, 9), h.good(A, 0, read10(30, 2), null));
    }

    @Test
    void readDefectDataIsAnEmptyListInTheRequestedFormat() {
        byte[] ten = h.good("37 00 1d 00 00 00 00 00 20 00");
        assertArrayEquals(new byte[] {0, 0x1D, 0, 0}, ten, "PLISTV, GLISTV, format 101b, length 0");
        byte[] twelve = h.good("b7 0c 00 00 00 00 00 00 00 20 00 00");
        assertEquals(8, twelve.length);
        assertEquals(0x0C, twelve[1]);
        assertEquals(0, Cdb.u32(twelve, 4), "defect list length");
        assertEquals(2, h.good("37 00 00 00 00 00 00 00 02 00").length, "clipped to the allocation length");
    }
}
