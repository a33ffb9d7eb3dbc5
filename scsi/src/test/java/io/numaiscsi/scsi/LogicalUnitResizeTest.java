package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A unit grown while it serves: every nexus that has used it hears CAPACITY DATA HAS CHANGED before anything else, then
 * READ CAPACITY and the LBA range checks follow the new size; a resize the device refuses changes nothing.
 */
class LogicalUnitResizeTest {
    private static final long OLD = 2048;
    private static final long NEW = 4096;
    private static final byte[] TUR = cdb("00 00 00 00 00 00");
    private static final byte[] READ_CAPACITY_10 = cdb("25 00 00000000 00 00 00 00");
    private static final byte[] READ_CAPACITY_16 = cdb("9e 10 0000000000000000 00000020 00 00");

    private final GrowableDisk disk = new GrowableDisk(OLD, 8192);
    private final LogicalUnit lu = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), disk);
    private final Harness h = new Harness(512, 1 << 20);

    LogicalUnitResizeTest() {
        h.target.add(lu);
    }

    /** A RAM disk that shows {@code blocks} of its capacity and grows up to all of it. */
    private static final class GrowableDisk implements BlockDevice {
        final RamBlockDevice ram;
        volatile long blocks;

        GrowableDisk(long blocks, long capacity) {
            this.ram = new RamBlockDevice(capacity * 512, 512);
            this.blocks = blocks;
        }

        @Override
        public int blockSize() {
            return 512;
        }

        @Override
        public long blockCount() {
            return blocks;
        }

        @Override
        public void resize(long newBlockCount) {
            BlockDevice.requireGrowth(this, newBlockCount);
            blocks = newBlockCount;
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            ram.read(offset, length, dst, done);
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            ram.write(offset, src, fua, done);
        }

        @Override
        public void flush(IoCompletion done) {
            ram.flush(done);
        }

        @Override
        public void unmap(long offset, long length, IoCompletion done) {
            ram.unmap(offset, length, done);
        }

        @Override
        public boolean isMapped(long offset) {
            return ram.isMapped(offset);
        }

        @Override
        public long nextMappingChange(long offset) {
            return Math.min(blocks * 512, ram.nextMappingChange(offset));
        }

        @Override
        public void close() {
            ram.close();
        }
    }

    private static byte[] getLbaStatus(long lba) {
        byte[] c = cdb("9e 12 0000000000000000 00000020 00 00");
        Cdb.putLong(c, 2, lba);
        return c;
    }

    @Test
    void everyNexusHearsOfTheNewCapacityThenReadCapacityAndRangeChecksFollowIt() throws Exception {
        byte[] lastOld = pattern(512, 3);
        h.good(A, 0, write10(OLD - 1, 1), lastOld);
        h.good(B, 0, TUR, null);
        h.check(A, 0, write10(OLD, 1), pattern(512, 4), SenseReason.LBA_OUT_OF_RANGE);
        assertEquals(OLD - 1, Cdb.u32(h.good(A, 0, READ_CAPACITY_10, null), 0));

        lu.resize(NEW).get(10, TimeUnit.SECONDS);

        h.check(A, 0, TUR, null, SenseReason.CAPACITY_DATA_HAS_CHANGED);
        h.check(B, 0, READ_CAPACITY_16, null, SenseReason.CAPACITY_DATA_HAS_CHANGED);
        h.good(A, 0, TUR, null); // reported once
        assertEquals(NEW - 1, Cdb.u32(h.good(A, 0, READ_CAPACITY_10, null), 0));
        assertEquals(NEW - 1, Cdb.u64(h.good(B, 0, READ_CAPACITY_16, null), 0));

        assertArrayEquals(
                lastOld, h.good(A, 0, read10(OLD - 1, 1), null), "the block before the old end kept its data");
        assertArrayEquals(new byte[512], h.good(A, 0, read10(NEW - 1, 1), null), "a new block reads as zeros");
        byte[] across = pattern(4 * 512, 5);
        h.good(A, 0, write10(OLD - 2, 4), across);
        assertArrayEquals(across, h.good(B, 0, read10(OLD - 2, 4), null), "a write across the old end");
        h.good(A, 0, write10(NEW - 1, 1), pattern(512, 6));
        h.check(A, 0, write10(NEW - 1, 2), pattern(1024, 7), SenseReason.LBA_OUT_OF_RANGE);
        h.check(A, 0, read10(NEW, 1), null, SenseReason.LBA_OUT_OF_RANGE);
        h.good(A, 0, getLbaStatus(NEW - 1), null);
        h.check(A, 0, getLbaStatus(NEW), null, SenseReason.LBA_OUT_OF_RANGE);
    }

    @Test
    void aResizeTheDeviceRefusesChangesNothing() {
        h.good(A, 0, TUR, null);
        IllegalArgumentException same = assertThrows(IllegalArgumentException.class, () -> lu.resize(OLD));
        assertTrue(same.getMessage().contains("devices only grow"), same.getMessage());
        assertThrows(IllegalArgumentException.class, () -> lu.resize(OLD - 1));
        h.good(A, 0, TUR, null); // no attention
        assertEquals(OLD - 1, Cdb.u32(h.good(A, 0, READ_CAPACITY_10, null), 0));

        LogicalUnit ram =
                new LogicalUnit(1, LunIdentity.derive(Harness.TARGET, 1, null), new RamBlockDevice(1 << 20, 512));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> ram.resize(4096));
        assertTrue(e.getMessage().contains("RAM disk cannot grow"), e.getMessage());
        assertEquals(2048, ram.blockCount);
    }

    @Test
    void theNewCountAndTheAttentionArriveTogetherOnTheUnitsThread() throws Exception {
        ExecutorService unitThread = Executors.newSingleThreadExecutor();
        try {
            Thread owner = unitThread.submit(Thread::currentThread).get();
            lu.thread(new LunThread() {
                @Override
                public boolean isCurrent() {
                    return Thread.currentThread() == owner;
                }

                @Override
                public void execute(Runnable r) {
                    unitThread.execute(r);
                }
            });
            unitThread.submit(() -> lu.unitAttentions.touch(A)).get();
            unitThread.execute(() -> sleep(200)); // the unit's thread is busy while the device grows
            CompletableFuture<Void> applied = lu.resize(NEW);
            assertEquals(NEW, disk.blockCount(), "the device grew on the caller's thread");
            assertEquals(OLD, lu.blockCount, "commands see the old count until the unit's thread takes the new one");
            applied.get(10, TimeUnit.SECONDS);
            assertEquals(NEW, lu.blockCount);
            assertEquals(
                    SenseReason.CAPACITY_DATA_HAS_CHANGED,
                    unitThread.submit(() -> lu.unitAttentions.poll(A)).get());
        } finally {
            unitThread.shutdownNow();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
