package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;

/**
 * The memory of one partition's slots: a slot holds a block of the node's pool or none (a spare slot). A spare slot
 * binds a block when the partition needs one more, and a slot unbinds its block when the pool wants memory back.
 * Under the partition's lock.
 */
final class SlotMemory {
    private final PoolShare share;
    /** The pool block each slot holds, -1 for none, and its view. */
    private final int[] poolBlock;

    private final ByteBuf[] views;
    private final int[] spareStack;
    private int spareCount;

    SlotMemory(PoolShare share, int slots) {
        this.share = share;
        poolBlock = new int[slots];
        views = new ByteBuf[slots];
        spareStack = new int[slots];
        for (int s = 0; s < slots; s++) {
            poolBlock[s] = -1;
            spareStack[s] = slots - 1 - s; // slot 0 handed out first
        }
        spareCount = slots;
    }

    /** Slot {@code s}'s memory; null for a spare slot. */
    ByteBuf view(int s) {
        return views[s];
    }

    /** Whether a spare slot could bind a block now: one is spare and the pool has memory free. */
    boolean canBindSpare() {
        return spareCount > 0 && share.pool.freeBytes() > 0;
    }

    /** A spare slot given a block of the pool's memory, or -1 when no slot is spare or the pool has no block free. */
    int bindSpare() {
        if (spareCount == 0) {
            return -1;
        }
        int b = share.pool.take(share);
        if (b < 0) {
            return -1;
        }
        int s = spareStack[--spareCount];
        poolBlock[s] = b;
        views[s] = share.pool.view(b);
        return s;
    }

    /**
     * A write parked on {@code partition} (these slots' owner): when it could bind more memory, it waits on the pool
     * for a block, since nothing of its own may come free.
     */
    void awaitBlockIfSpare(CachePartition partition) {
        if (spareCount > 0) {
            share.pool.awaitBlock(share, partition);
        }
    }

    /** Gives slot {@code s}'s block back to the pool: the slot is spare again. */
    void unbind(int s) {
        share.pool.give(share, poolBlock[s]);
        poolBlock[s] = -1;
        views[s] = null;
        spareStack[spareCount++] = s;
    }
}
