package io.numaiscsi.blockdev.backstore;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.numa.DataTouches;
import java.util.Objects;

/**
 * No storage at all, for measuring the protocol path alone (as SPDK's null bdev and tgt's {@code bs_null}): reads
 * return zeroes, writes are acknowledged and dropped, every request completes at once on the caller's thread. The
 * zeroes are written into the caller's buffer, which comes from a pool and must not show another command's bytes.
 */
public final class NullBlockDevice extends BackingStore {
    private final long size;
    private final DataTouches touches;
    private volatile boolean closed;

    public NullBlockDevice(long sizeBytes, int blockSize, DataTouches touches) {
        super(blockSize);
        requireGeometry(sizeBytes, blockSize);
        this.size = sizeBytes;
        this.touches = Objects.requireNonNull(touches, "touches");
    }

    @Override
    protected long sizeBytes() {
        return size;
    }

    @Override
    public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        IoStatus refused = refusal(offset, length);
        if (refused != null) {
            done.ioComplete(refused);
            return;
        }
        int at = dst.writerIndex();
        dst.writeZero(length);
        touches.touched(DataTouches.Kind.BACKING, dst, at, length);
        done.ioComplete(IoStatus.OK);
    }

    @Override
    public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
        IoStatus refused = refusal(offset, src.readableBytes());
        done.ioComplete(refused != null ? refused : IoStatus.OK);
    }

    @Override
    public void flush(IoCompletion done) {
        done.ioComplete(closed ? IoStatus.UNAVAILABLE : IoStatus.OK);
    }

    @Override
    public void unmap(long offset, long length, IoCompletion done) {
        IoStatus refused = refusal(offset, length);
        done.ioComplete(refused != null ? refused : IoStatus.OK);
    }

    /** Every block reads as zeroes, so every block is reported unmapped. */
    @Override
    public boolean isMapped(long offset) {
        return false;
    }

    @Override
    public long nextMappingChange(long offset) {
        return size;
    }

    @Override
    public void close() {
        closed = true;
    }

    private IoStatus refusal(long offset, long length) {
        if (closed) {
            return IoStatus.UNAVAILABLE;
        }
        return BlockDevice.inRange(offset, length, size) ? null : IoStatus.OUT_OF_RANGE;
    }
}
