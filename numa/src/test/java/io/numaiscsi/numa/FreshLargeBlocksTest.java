package io.numaiscsi.numa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.MemoryIO;
import org.junit.jupiter.api.Test;

class FreshLargeBlocksTest {

    /**
     * glibc gives a mapped block the address of its mapping plus a 16-byte header; a block recycled from a heap
     * lies anywhere. Without the fixed threshold the second 4 MiB block here would come from the heap the first
     * one's free raised the threshold for.
     */
    @Test
    void everyLargeBlockIsAFreshMappingAfterFreesOfLargeBlocks() {
        assertTrue(FreshLargeBlocks.fixThreshold(), "this machine's C library is glibc");
        MemoryIO io = MemoryIO.getInstance();
        for (int round = 0; round < 4; round++) {
            long block = io.allocateMemory(4 << 20, false);
            assertTrue(block != 0);
            try {
                assertEquals(16, block % 4096, "round " + round + ": block at " + Long.toHexString(block));
            } finally {
                io.freeMemory(block);
            }
        }
    }
}
