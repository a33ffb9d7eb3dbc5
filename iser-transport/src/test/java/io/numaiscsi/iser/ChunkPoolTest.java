package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChunkPoolTest {
    private final MemoryRegion region = new MemoryRegion(ByteBuffer.allocateDirect(64 * 1024), 0x1000, 1, 2, 0);

    @Test
    void takesEveryChunkOnceThenReportsExhaustion() {
        ChunkPool pool = new ChunkPool(region, 1024, 4096, 8);
        Set<Integer> offsets = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            int c = pool.take();
            assertEquals(i, c, "lowest index first");
            offsets.add(pool.offset(c));
            assertEquals(8 - i - 1, pool.available());
        }
        assertEquals(8, offsets.size());
        assertEquals(1024, pool.offset(0));
        assertEquals(1024 + 7 * 4096, pool.offset(7));
        assertEquals(-1, pool.take());
        assertEquals(8, pool.inUse());
    }

    @Test
    void givenBackChunksAreReusedAndDoubleGiveIsABug() {
        ChunkPool pool = new ChunkPool(region, 0, 4096, 4);
        int a = pool.take();
        int b = pool.take();
        pool.give(a);
        assertEquals(3, pool.available());
        assertEquals(a, pool.take(), "last given, first taken");
        pool.give(b);
        assertThrows(IllegalStateException.class, () -> pool.give(b));
        assertEquals(1, pool.inUse());
    }

    @Test
    void poolMustFitItsRegion() {
        assertThrows(IllegalArgumentException.class, () -> new ChunkPool(region, 4096, 4096, 16));
        assertThrows(IllegalArgumentException.class, () -> new ChunkPool(region, 0, 0, 1));
    }
}
