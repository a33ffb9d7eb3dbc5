package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.SharedRead;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.List;
import org.junit.jupiter.api.Test;

/** READ takes the device's own buffer (no copy) only when the transport sends data-in straight from memory. */
class SharedDataInTest implements ScsiTaskListener {
    private static final String TARGET = "iqn.2024-01.io.numaiscsi:shared";
    private static final byte[] READ_16_LBA2_2BLOCKS = Harness.cdb("88 00 0000000000000002 00000002 00 00");

    /** A RAM disk that serves shared reads from a buffer of its own and counts both kinds. */
    private static final class MemoryDevice extends RamDelegate {
        int sharedReads;
        int copyReads;
        ByteBuf lastShared;

        MemoryDevice() {
            super(new RamBlockDevice(1 << 20, 512));
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            copyReads++;
            ram.read(offset, length, dst, done);
        }

        @Override
        public boolean readShared(long offset, int length, ByteBufAllocator alloc, SharedRead done) {
            sharedReads++;
            ByteBuf own = Unpooled.directBuffer(length);
            ram.read(offset, length, own, st -> {
                lastShared = own;
                done.sharedReadDone(st, own);
            });
            return true;
        }
    }

    private int completions;

    @Override
    public void taskComplete(ScsiTask task) {
        completions++;
    }

    @Test
    void aSharedTransportGetsTheDevicesBufferOthersACopy() {
        MemoryDevice device = new MemoryDevice();
        byte[] data = Harness.pattern(1024, 5);
        ByteBuf src = Unpooled.wrappedBuffer(data);
        device.write(1024, src, false, st -> assertEquals(IoStatus.OK, st));
        ScsiTarget target = new ScsiTarget(
                TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), device)),
                PooledByteBufAllocator.DEFAULT);

        ScsiTask task = new ScsiTask(this);
        task.sharedDataIn(true);
        run(target, task);
        assertEquals(1, device.sharedReads);
        assertSame(device.lastShared, task.dataIn(), "data-in is the device's buffer itself");
        assertArrayEquals(data, ByteBufUtil.getBytes(task.dataIn()));
        ByteBuf shared = task.dataIn();
        task.recycle();
        assertEquals(0, shared.refCnt(), "recycling the task releases the device's buffer");

        task.sharedDataIn(false);
        run(target, task);
        assertEquals(1, device.sharedReads);
        assertEquals(1, device.copyReads);
        assertArrayEquals(data, ByteBufUtil.getBytes(task.dataIn()));
        task.recycle();
        assertEquals(2, completions);
    }

    @Test
    void aCopyingTransportTakesTheDevicesBufferForReadsOfAtLeastTheUnitsMinimum() {
        MemoryDevice device = new MemoryDevice();
        LogicalUnit unit = new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), device);
        ScsiTarget target = new ScsiTarget(TARGET, List.of(unit), PooledByteBufAllocator.DEFAULT);
        ScsiTask task = new ScsiTask(this);
        unit.sharedReadMin(2048);
        run(target, task); // 1024 bytes: below the minimum
        task.recycle();
        assertEquals(0, device.sharedReads);
        unit.sharedReadMin(1024);
        run(target, task);
        assertSame(device.lastShared, task.dataIn(), "large enough: served from the device's memory");
        task.recycle();
        assertEquals(1, device.sharedReads);
        assertEquals(1, device.copyReads);
    }

    private static void run(ScsiTarget target, ScsiTask task) {
        task.init(Harness.A, 0, Unpooled.wrappedBuffer(READ_16_LBA2_2BLOCKS), 0, 16, 1024, true, false);
        assertEquals(true, target.prepare(task));
        target.execute(task);
        assertEquals(ScsiStatus.GOOD, task.status());
    }
}
