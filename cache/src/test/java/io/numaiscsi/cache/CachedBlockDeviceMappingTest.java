package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** GET LBA STATUS under write-back: a block written but not yet flushed is mapped. */
class CachedBlockDeviceMappingTest {
    private static final int BLOCK = 64 << 10;

    @Test
    void dirtyBlocksAreMappedBeforeTheyReachTheBackingStore() throws Exception {
        RamBlockDevice ram = new RamBlockDevice(16L << 20, 512);
        NumaTopology topology = NumaTopology.detect();
        try (NodeMemory memory = NodeMemory.open(topology)) {
            CachedBlockDevice cache = CachedBlockDevice.create(
                    ram,
                    new CacheParameters(4L << 20, BLOCK, 4, 4, 64 << 10, WritePolicy.WRITE_BACK),
                    topology,
                    memory,
                    null);
            try {
                long offset = 5L * BLOCK;
                assertFalse(cache.isMapped(offset), "nothing written yet");
                CompletableFuture<IoStatus> written = new CompletableFuture<>();
                cache.write(offset, Unpooled.wrappedBuffer(new byte[BLOCK]), false, written::complete);
                assertEquals(IoStatus.OK, written.get(5, TimeUnit.SECONDS));
                assertFalse(ram.isMapped(offset), "write-back: the backing store does not have it yet");

                assertTrue(cache.isMapped(offset), "dirty in the cache means mapped");
                assertEquals(6L * BLOCK, cache.nextMappingChange(offset), "mapped to the end of the dirty block");
                assertEquals(5L * BLOCK, cache.nextMappingChange(0), "the unmapped run before it ends where it begins");

                CompletableFuture<IoStatus> flushed = new CompletableFuture<>();
                cache.flush(flushed::complete);
                assertEquals(IoStatus.OK, flushed.get(5, TimeUnit.SECONDS));
                assertTrue(ram.isMapped(offset));
                assertTrue(cache.isMapped(offset));
            } finally {
                cache.close();
            }
        }
    }

    @Test
    void unmappingWholeDirtyBlocksDropsThemSoTheRangeStaysDeallocated() throws Exception {
        RamBlockDevice ram = new RamBlockDevice(16L << 20, 512);
        NumaTopology topology = NumaTopology.detect();
        try (NodeMemory memory = NodeMemory.open(topology)) {
            CachedBlockDevice cache = CachedBlockDevice.create(
                    ram,
                    new CacheParameters(4L << 20, BLOCK, 4, 4, 64 << 10, WritePolicy.WRITE_BACK),
                    topology,
                    memory,
                    null);
            try {
                byte[] data = new byte[3 * BLOCK];
                Arrays.fill(data, (byte) 'a');
                CompletableFuture<IoStatus> written = new CompletableFuture<>();
                cache.write(2L * BLOCK, Unpooled.wrappedBuffer(data), false, written::complete);
                assertEquals(IoStatus.OK, written.get(5, TimeUnit.SECONDS));
                CompletableFuture<IoStatus> unmapped = new CompletableFuture<>();
                cache.unmap(2L * BLOCK + 512, 3L * BLOCK - 512, unmapped::complete); // all but the first sector
                assertEquals(IoStatus.OK, unmapped.get(5, TimeUnit.SECONDS));
                CompletableFuture<IoStatus> flushed = new CompletableFuture<>();
                cache.flush(flushed::complete);
                assertEquals(IoStatus.OK, flushed.get(5, TimeUnit.SECONDS));

                assertTrue(cache.isMapped(2L * BLOCK), "the partly unmapped block keeps its first sector");
                assertFalse(cache.isMapped(3L * BLOCK), "a wholly unmapped dirty block is not written back");
                assertFalse(ram.isMapped(4L * BLOCK), "nor is the last one");
                assertEquals(16L << 20, cache.nextMappingChange(3L * BLOCK), "unmapped to the end");
                CompletableFuture<IoStatus> read = new CompletableFuture<>();
                ByteBuf dst = Unpooled.buffer(2 * BLOCK);
                cache.read(3L * BLOCK, 2 * BLOCK, dst, read::complete);
                assertEquals(IoStatus.OK, read.get(5, TimeUnit.SECONDS));
                assertEquals(2 * BLOCK, dst.readableBytes());
                for (int i = 0; i < 2 * BLOCK; i++) {
                    assertEquals(0, dst.getByte(i), "reads zeros at " + i);
                }
            } finally {
                cache.close();
            }
        }
    }
}
