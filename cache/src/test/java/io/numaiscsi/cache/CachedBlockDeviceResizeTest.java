package io.numaiscsi.cache;

import static io.numaiscsi.cache.Support.flush;
import static io.numaiscsi.cache.Support.pattern;
import static io.numaiscsi.cache.Support.read;
import static io.numaiscsi.cache.Support.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.Support.Done;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A cache in front of a device that grows: what it holds stays valid, requests up to the new end pass its range checks
 * and reach the grown device, and it refuses to grow from an end inside a cache block.
 */
class CachedBlockDeviceResizeTest {
    private static final int BLOCK = 64 * 1024;
    private static final long OLD = 8L * BLOCK;
    private static final long NEW = 20L * BLOCK;

    private CachedBlockDevice cache;

    @AfterEach
    void close() {
        if (cache != null) {
            cache.close();
        }
    }

    /** A RAM disk showing {@code size} bytes of its capacity, which refuses requests past them as a real store does. */
    private static final class GrowingDevice extends RamBackedDevice {
        final AtomicInteger reads = new AtomicInteger();
        volatile long size;

        GrowingDevice(long size) {
            super(new RamBlockDevice(NEW, 512));
            this.size = size;
        }

        @Override
        public long blockCount() {
            return size / 512;
        }

        @Override
        public void resize(long newBlockCount) {
            BlockDevice.requireGrowth(this, newBlockCount);
            size = newBlockCount * 512;
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            reads.incrementAndGet();
            if (offset + length > size) {
                done.ioComplete(IoStatus.OUT_OF_RANGE);
                return;
            }
            super.read(offset, length, dst, done);
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            if (offset + src.readableBytes() > size) {
                done.ioComplete(IoStatus.OUT_OF_RANGE);
                return;
            }
            super.write(offset, src, fua, done);
        }
    }

    @ParameterizedTest
    @EnumSource(WritePolicy.class)
    void whatTheCacheHoldsStaysValidAndTheNewEndIsServed(WritePolicy policy) throws Exception {
        GrowingDevice backing = new GrowingDevice(OLD);
        byte[] expected = pattern((int) OLD, 1);
        assertEquals(IoStatus.OK, write(backing.ram, 0, expected, false));
        cache = Support.cache(backing, 8 * BLOCK, BLOCK, 2, 1, policy);
        assertArrayEquals(expected, read(cache, 0, (int) OLD), "every block filled");
        byte[] lastBlock = pattern(BLOCK, 2);
        assertEquals(IoStatus.OK, write(cache, OLD - BLOCK, lastBlock, false)); // dirty under write-back
        System.arraycopy(lastBlock, 0, expected, (int) (OLD - BLOCK), BLOCK);
        assertArrayEquals(expected, read(cache, 0, (int) OLD), "the written block cached again (write-through)");
        Done refused = new Done();
        cache.read(OLD, 512, Unpooled.buffer(512), refused);
        assertEquals(IoStatus.OUT_OF_RANGE, refused.await(), "past the end before the resize");

        assertThrows(IllegalArgumentException.class, () -> cache.resize(OLD / 512 - 1), "never shrinks");
        cache.resize(NEW / 512);

        assertEquals(NEW / 512, cache.blockCount());
        int readsBefore = backing.reads.get();
        assertArrayEquals(expected, read(cache, 0, (int) OLD), policy + ": the data before the old end");
        assertEquals(readsBefore, backing.reads.get(), policy + ": served from what the cache held");
        assertArrayEquals(new byte[(int) (NEW - OLD)], read(cache, OLD, (int) (NEW - OLD)), "the new blocks are zeros");
        byte[] across = pattern(2 * BLOCK + 4096, 3);
        assertEquals(IoStatus.OK, write(cache, OLD - BLOCK - 4096, across, false));
        byte[] grown = Arrays.copyOf(expected, (int) NEW);
        System.arraycopy(across, 0, grown, (int) (OLD - BLOCK - 4096), across.length);
        byte[] tail = pattern(4096, 4);
        assertEquals(IoStatus.OK, write(cache, NEW - 4096, tail, false));
        System.arraycopy(tail, 0, grown, (int) (NEW - 4096), tail.length);
        assertArrayEquals(grown, read(cache, 0, (int) NEW), policy + ": through the cache");
        assertEquals(IoStatus.OK, flush(cache));
        assertArrayEquals(grown, read(backing.ram, 0, (int) NEW), policy + ": on the grown device");
        Done beyond = new Done();
        cache.write(NEW - 512, Unpooled.wrappedBuffer(new byte[1024]), false, beyond);
        assertEquals(IoStatus.OUT_OF_RANGE, beyond.await(), "past the new end");
    }

    @Test
    void anEndInsideACacheBlockIsNotGrownFrom() {
        GrowingDevice backing = new GrowingDevice(OLD - 4096);
        cache = Support.cache(backing, 8 * BLOCK, BLOCK, 2, 1, WritePolicy.WRITE_BACK);
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> cache.resize(NEW / 512));
        assertTrue(e.getMessage().contains("multiple of the cache block (65536 bytes)"), e.getMessage());
        assertEquals((OLD - 4096) / 512, cache.blockCount());
        assertEquals((OLD - 4096) / 512, backing.blockCount(), "the device was not asked to grow");
    }
}
