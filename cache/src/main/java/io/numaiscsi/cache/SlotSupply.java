package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;

/**
 * Where a partition's slots come from and go back to: free slots holding memory, spare slots bound to the node pool's
 * memory on demand ({@link SlotMemory}), and the LRU list of evictable blocks with the miss clock that ages it. Part
 * of {@link SlotTable}, which decides what is evictable and does the unmapping; used under the partition's lock only.
 */
final class SlotSupply {
    /** Misses without an eviction, in slots, after which a partition counts as settled. */
    static final int SETTLED_MISSES = 4;
    /**
     * Misses, in slots, for which the least recently used block must have gone unused before a settled partition's
     * admission may evict it (see {@link #roomForNewBlock}).
     */
    static final int IDLE_MISSES = 64;

    private final int slots;
    private final SlotMemory memory;
    /** Free slots holding memory; spare slots hold none (their memory is in the pool or was never taken). */
    private final int[] freeStack;

    private int freeCount;
    private final LruList lru;
    /** Read misses looked at in this partition, and that count at its last eviction (see {@link #settled}). */
    private long missClock;

    private long lastEviction;

    SlotSupply(PoolShare share, int slots) {
        this.slots = slots;
        this.memory = new SlotMemory(share, slots);
        this.freeStack = new int[slots];
        this.lru = new LruList(slots);
    }

    /** Slot s's memory; null for a spare slot. */
    ByteBuf view(int s) {
        return memory.view(s);
    }

    /**
     * Counts a read miss; true when the partition has evicted nothing for the last {@link #SETTLED_MISSES} slots' worth
     * of misses: what it is asked for then fits, and a miss may fill without the reuse the admission otherwise asks for
     * (a LUN that fits in the cache warms up under random reads; on one larger than it, misses evict, and the partition
     * stays strict).
     */
    boolean settled() {
        return ++missClock - lastEviction > (long) SETTLED_MISSES * slots;
    }

    /**
     * Whether a new block can take a slot without evicting one still in use: a free slot, memory of the pool, or an LRU
     * tail unused for {@link #IDLE_MISSES} slots' worth of misses. On a LUN several times larger than the cache, random
     * misses reach each block held every few slots' worth of misses, so the tail is never that idle and a settled
     * admission evicts nothing (before, one admission every {@link #SETTLED_MISSES} slots' worth of misses evicted a
     * block for one that held a granule, turning the whole cache over every few seconds); when the working set moves,
     * the blocks it left go idle and are replaced.
     */
    boolean roomForNewBlock() {
        int tail = lru.tail();
        return freeCount > 0
                || memory.canBindSpare()
                || (tail >= 0 && missClock - lru.usedAt(tail) > (long) IDLE_MISSES * slots);
    }

    /** A free slot, or a spare one given pool memory; -1 when there is neither (the LRU tail is evicted then). */
    int takeFree() {
        return freeCount > 0 ? freeStack[--freeCount] : memory.bindSpare();
    }

    /** The least recently used evictable slot, or -1 when none is. */
    int lruTail() {
        return lru.tail();
    }

    /** Slot s, the LRU tail, is evicted: it leaves the list, and the partition is not settled for a while. */
    void evicted(int s) {
        lru.remove(s);
        lastEviction = missClock;
    }

    /** Slot s, with its memory, is free. */
    void free(int s) {
        freeStack[freeCount++] = s;
    }

    /** Gives the memory of up to {@code wanted} free slots back to the pool; returns how many gave it. */
    int unbindFree(int wanted) {
        int given = 0;
        while (given < wanted && freeCount > 0) {
            memory.unbind(freeStack[--freeCount]);
            given++;
        }
        return given;
    }

    /** Gives slot s's memory back to the pool: the slot is spare. */
    void unbind(int s) {
        memory.unbind(s);
    }

    /** Slot s became evictable: the most recently used. */
    void toLru(int s) {
        lru.pushHead(s, missClock);
    }

    /** Slot s is no longer evictable (pinned, unmapped). */
    void leaveLru(int s) {
        if (lru.contains(s)) {
            lru.remove(s);
        }
    }

    /** A hit served without a pin: slot s, if evictable, becomes the most recently used. */
    void used(int s) {
        if (lru.contains(s)) {
            lru.remove(s);
            toLru(s);
        }
    }

    /** A write parked on {@code partition} waits on the pool for a block when a spare slot could take one. */
    void awaitBlockIfSpare(CachePartition partition) {
        memory.awaitBlockIfSpare(partition);
    }

    int freeCount() {
        return freeCount;
    }

    /** Slots in LRU order, least recently used first. */
    int[] lruOrder() {
        return lru.order();
    }
}
