package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A configured physical block larger than the logical one (512e), and WRITE SAME of zeros offloaded to the device. */
class PhysicalBlockTest {
    private static final long SIZE = 8L << 20;

    private static LogicalUnit unit(BlockDevice device, int physical) {
        return new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device, physical);
    }

    @Test
    void a4kPhysicalBlockOn512ByteBlocksIsReportedAsEightLogicalPerPhysical() {
        Harness h = new Harness(unit(new RamBlockDevice(SIZE, 512), 4096));
        byte[] rc16 = h.good("9e10 0000000000000000 00000020 0000");
        assertEquals(512, Cdb.u32(rc16, 8));
        assertEquals(3, rc16[13] & 0x0F, "LBPPBE: 2^3 logical blocks per physical block");
        assertEquals(0, ((rc16[14] & 0x3F) << 8) | (rc16[15] & 0xFF), "lowest aligned LBA");
        byte[] limits = h.good("12 01 b0 0040 00");
        assertEquals(8, ((limits[6] & 0xFF) << 8) | (limits[7] & 0xFF), "optimal transfer length granularity");
        assertEquals(8, Cdb.u32(limits, 28), "optimal unmap granularity");
    }

    @Test
    void withoutAConfiguredSizeTheDevicesOwnIsReported() {
        Harness h = new Harness(unit(new RamBlockDevice(SIZE, 512), 0));
        assertEquals(0, h.good("9e10 0000000000000000 00000020 0000")[13] & 0x0F);
    }

    @Test
    void aPhysicalBlockThatIsNotAPowerOfTwoMultipleIsRefused() {
        RamBlockDevice d = new RamBlockDevice(SIZE, 4096);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> unit(d, 2048));
        assertEquals("2048 bytes is not a power-of-two multiple of the block size (4096 bytes)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> unit(new RamBlockDevice(SIZE, 512), 1536));
    }

    /**
     * libiscsi's GetLBAStatus.UnmapSingle asks for LBA i+1 after unmapping LBAs 0..i-1 and expects the first descriptor
     * at i+LBPPB; SBC-3 (5.7) has the first descriptor start at the LBA asked for, which is what is returned.
     */
    @Test
    void getLbaStatusStartsAtTheRequestedLbaWhateverThePhysicalBlock() {
        RamBlockDevice d = new RamBlockDevice(SIZE, 512);
        Harness h = new Harness(unit(d, 4096));
        h.good(A, 0, write10(0, 264), pattern(264 * 512, 1));
        byte[] list = new byte[24];
        list[1] = 22;
        list[3] = 16;
        Cdb.putLong(list, 8, 0);
        Cdb.putInt(list, 16, 8);
        h.good(A, 0, cdb("42000000000000001800"), list);
        byte[] status = h.good("9e12 0000000000000009 00000018 0000");
        assertEquals(9, Cdb.u64(status, 8), "first descriptor starts at the requested LBA");
        assertEquals(0, status[20], "mapped");
        status = h.good("9e12 0000000000000003 00000018 0000");
        assertEquals(3, Cdb.u64(status, 8));
        assertEquals(5, Cdb.u32(status, 16), "deallocated up to the end of the unmapped physical block");
        assertEquals(1, status[20], "deallocated");
    }

    @Test
    void writeSameOfZerosGoesToTheDevicesZeroingAndKeepsTheBlocksMapped() {
        ZeroingDevice d = new ZeroingDevice(new RamBlockDevice(SIZE, 512));
        Harness h = new Harness(unit(d, 0));
        h.good(A, 0, write10(16, 4), pattern(2048, 7));
        h.good(A, 0, cdb("41 00 00000010 00 0004 00"), new byte[512]);
        assertEquals(List.of(16L * 512, 4L * 512), d.zeroed);
        assertArrayEquals(new byte[2048], h.good(A, 0, read10(16, 4), null));
        assertTrue(d.isMapped(16 * 512));

        byte[] nonZero = pattern(512, 3);
        h.good(A, 0, cdb("41 00 00000010 00 0002 00"), nonZero);
        assertEquals(2, d.zeroed.size(), "a non-zero pattern is written, not zeroed");
        h.good(A, 0, cdb("41 08 00000010 00 0002 00"), new byte[512]);
        assertEquals(2, d.zeroed.size(), "zeros with UNMAP deallocate instead");
    }

    /** A RAM device that zeroes by request (as a block device's BLKZEROOUT) and records the ranges. */
    private static final class ZeroingDevice extends RamDelegate {
        final List<Long> zeroed = new ArrayList<>();

        ZeroingDevice(RamBlockDevice ram) {
            super(ram);
        }

        @Override
        public boolean writeZeroes(long offset, long length, IoCompletion done) {
            zeroed.add(offset);
            zeroed.add(length);
            ByteBuf zeros = Unpooled.directBuffer((int) length).writeZero((int) length);
            ram.write(offset, zeros, false, status -> {
                zeros.release();
                done.ioComplete(status);
            });
            return true;
        }
    }
}
