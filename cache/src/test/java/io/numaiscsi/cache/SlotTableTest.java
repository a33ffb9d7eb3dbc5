package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Slot bookkeeping, driven directly (its partition's lock is not needed on one thread). */
class SlotTableTest {
    private final CacheCounters counters = new CacheCounters(1);
    private final SlotTable p = table(4);

    /** A table of {@code slots} blocks of 4 KiB with a pool of its own, as the only member of the pool. */
    private SlotTable table(int slots) {
        PoolShare share = new PoolShare(NodeBlockPool.over(0, ByteBuffer.allocateDirect(slots * 4096), 4096));
        share.join(new CachePartition[0]);
        return new SlotTable(
                null,
                new PartitionSetup(
                        0, share, slots, 4096, 4096, counters, null, new DirtyAccount((long) slots * 4096, 0.5, 4096)));
    }

    /** Fills block {@code block} into a new slot and releases the filler's pin, as a read miss does. */
    private int load(long block) {
        int s = p.acquire();
        p.startFill(s, block, 0, 1);
        p.filled(s, true);
        p.unpin(s);
        return s;
    }

    @Test
    void freeSlotsFirstThenLeastRecentlyUsed() {
        int a = load(10);
        int b = load(11);
        int c = load(12);
        int d = load(13);
        assertEquals(0, p.freeCount());
        assertArrayEquals(new int[] {a, b, c, d}, p.lruOrder());
        // touching a (pin + unpin, as a hit does) makes it most recently used
        p.pin(p.lookup(10));
        p.unpin(a);
        assertArrayEquals(new int[] {b, c, d, a}, p.lruOrder());
        int e = p.acquire(); // evicts b, the least recently used
        assertEquals(b, e);
        assertEquals(LongIntMap.MISSING, p.lookup(11));
        assertEquals(1, counters.snapshot().evictions()[0]);
        p.startFill(e, 14, 0, 1);
        assertEquals(e, p.lookup(14));
    }

    @Test
    void pinnedBlocksAreNeverEvicted() {
        int[] s = new int[4];
        for (int i = 0; i < 4; i++) {
            s[i] = load(i);
            p.pin(s[i]);
        }
        assertEquals(0, p.lruOrder().length, "pinned blocks leave the LRU list");
        assertEquals(-1, p.acquire(), "nothing evictable");
        for (int i = 0; i < 4; i++) {
            assertEquals(s[i], p.lookup(i), "every pinned block is still cached");
        }
        assertTrue(p.unpin(s[2]));
        assertEquals(s[2], p.acquire());
        assertEquals(LongIntMap.MISSING, p.lookup(2));
    }

    @Test
    void dirtyAndFillingBlocksAreNotEvictable() {
        int a = p.acquire();
        p.startFill(a, 1, 0, 1); // filling, pinned by its filler
        int b = p.acquire();
        p.install(b, 2, true); // dirty
        p.unpin(b);
        assertEquals(0, p.lruOrder().length);
        int c = load(3);
        int d = load(4);
        assertArrayEquals(new int[] {c, d}, p.lruOrder());
        p.pin(c);
        p.pin(d);
        assertEquals(-1, p.acquire());
    }

    @Test
    void orphanGoesToFreeListOnLastUnpin() {
        int a = load(7);
        p.pin(a);
        p.unmapSlot(a);
        assertEquals(LongIntMap.MISSING, p.lookup(7));
        int free = p.freeCount();
        assertTrue(p.unpin(a));
        assertEquals(free + 1, p.freeCount());
        assertEquals(0, p.lruOrder().length);
    }

    @Test
    void installReplacesTheOldVersion() {
        int old = load(5);
        int fresh = p.acquire();
        p.install(fresh, 5, false);
        p.unpin(fresh);
        assertEquals(fresh, p.lookup(5));
        assertArrayEquals(new int[] {fresh}, p.lruOrder());
        assertEquals(SlotTable.FREE, p.state(old));
    }
}
