package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No plain write (WRITE, WRITE SAME, UNMAP) is in flight beside WRITE ATOMIC, ORWRITE or COMPARE AND WRITE on one
 * unit: a store may carry overlapping requests out in any order, so each waits for the other to finish.
 */
class AtomicAgainstPlainWritesTest {
    /** A RAM disk that records each write's offset and length and holds its completion until the test lets it go. */
    private static final class HeldDevice extends RamDelegate {
        final List<String> issued = new ArrayList<>();
        final ArrayDeque<Runnable> held = new ArrayDeque<>();

        HeldDevice() {
            super(new RamBlockDevice(8L << 20, 512));
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            issued.add("write " + offset / 512 + "+" + src.readableBytes() / 512);
            ram.write(offset, src, fua, s -> held.add(() -> done.ioComplete(s)));
        }

        @Override
        public void unmap(long offset, long length, IoCompletion done) {
            issued.add("unmap " + offset / 512 + "+" + length / 512);
            ram.unmap(offset, length, s -> held.add(() -> done.ioComplete(s)));
        }

        void step() {
            held.poll().run();
        }
    }

    private final HeldDevice device = new HeldDevice();
    private final Harness h = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));

    private static byte[] writeAtomic(long lba, int blocks) {
        return cdb(String.format("9c 00 %016x 0000 %04x 00 00", lba, blocks));
    }

    @Test
    void aWriteArrivingDuringAnAtomicWriteWaitsForIt() {
        ScsiTask atomic = h.start(A, 0, writeAtomic(0, 8), pattern(8 * 512, 1));
        ScsiTask plain = h.start(B, 0, Harness.write10(4, 8), pattern(8 * 512, 2));
        assertEquals(List.of("write 0+8"), device.issued, "the overlapping WRITE is held back");
        device.step();
        assertEquals(ScsiStatus.GOOD, atomic.status());
        assertEquals(List.of("write 0+8", "write 4+8"), device.issued, "and starts when the atomic write is done");
        device.step();
        assertEquals(ScsiStatus.GOOD, plain.status());
        byte[] expected = pattern(8 * 512, 1);
        System.arraycopy(pattern(8 * 512, 2), 0, expected, 4 * 512, 4 * 512);
        assertArrayEquals(
                expected, h.good(A, 0, Harness.read10(0, 8), null), "the WRITE's blocks over the atomic ones");
        atomic.recycle();
        plain.recycle();
    }

    @Test
    void anAtomicWriteWaitsForWritesInFlightAndLaterWritesWaitBehindIt() {
        ScsiTask first = h.start(B, 0, Harness.write10(100, 8), pattern(8 * 512, 3));
        ScsiTask unmap = h.start(B, 0, cdb("42 00 00000000 00 0018 00"), unmapList(200, 8));
        ScsiTask atomic = h.start(A, 0, writeAtomic(100, 8), pattern(8 * 512, 4));
        ScsiTask later = h.start(B, 0, Harness.write10(300, 8), pattern(8 * 512, 5));
        assertEquals(List.of("write 100+8", "unmap 200+8"), device.issued, "the atomic write waits for both");
        device.step();
        assertEquals(List.of("write 100+8", "unmap 200+8"), device.issued, "one is still in flight");
        device.step();
        assertEquals(List.of("write 100+8", "unmap 200+8", "write 100+8"), device.issued, "now the atomic write alone");
        device.step();
        assertEquals(
                List.of("write 100+8", "unmap 200+8", "write 100+8", "write 300+8"),
                device.issued,
                "the WRITE that came while it waited goes last");
        device.step();
        for (ScsiTask t : List.of(first, unmap, atomic, later)) {
            assertEquals(ScsiStatus.GOOD, t.status());
            t.recycle();
        }
    }

    private static byte[] unmapList(long lba, int blocks) {
        byte[] list = new byte[24];
        list[1] = 22;
        list[3] = 16;
        for (int i = 0; i < 8; i++) {
            list[8 + 7 - i] = (byte) (lba >>> (8 * i));
        }
        Cdb.putInt(list, 16, blocks);
        return list;
    }
}
