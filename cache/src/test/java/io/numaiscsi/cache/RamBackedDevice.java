package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;

/**
 * A test backing device over a RAM disk: every call goes to the RAM disk, and close keeps the data (tests read it
 * after the cache closed its backing device). Subclasses change only what they test: counting, delays, completing on
 * another thread.
 */
abstract class RamBackedDevice implements BlockDevice {
    final RamBlockDevice ram;

    RamBackedDevice(RamBlockDevice ram) {
        this.ram = ram;
    }

    @Override
    public int blockSize() {
        return ram.blockSize();
    }

    @Override
    public long blockCount() {
        return ram.blockCount();
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
        return ram.nextMappingChange(offset);
    }

    @Override
    public void close() {}
}
