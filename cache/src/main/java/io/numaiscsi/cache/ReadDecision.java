package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;

/**
 * The per-piece read decision, in one place: hit, wait for the fill in flight, sub-block fill, miss with admission,
 * bypass, read-through, or read-through merged with a block written in part. One per partition; its {@link
 * CachePartition} calls it under its lock, for a cache request ({@link ReadRequest}) and for the one-block path
 * ({@link CacheReads#read}).
 */
final class ReadDecision {
    /** The piece's granules are valid: pinned. */
    static final int HIT = 0;
    /** The fill in flight reads the piece: pinned, the waiter is told when it is done. */
    static final int WAIT = 1;
    /** A fill was started for the piece: pinned, the waiter waits on it; the caller issues it. */
    static final int FILL = 2;
    /** Read it straight from the backing device: the admission gave it no slot, or the slot is in other hands. */
    static final int READ_THROUGH = 3;
    /** Read it straight from the backing device: a fill was wanted but every slot is pinned, filling or dirty. */
    static final int BYPASS = 4;
    /** Without a request: a hit copied into the caller's buffer (nothing pinned). */
    static final int COPIED = 5;
    /** Without a request: nothing done, the piece needs a cache request (a hit not copied here, a fill, a wait). */
    static final int NEEDS_REQUEST = 6;
    /** Without a request: the admission let the miss in; the cache request that fills it passes {@code admitted}. */
    static final int ADMITTED = 7;
    /**
     * The slot holds newer data than the backing device for some of the piece's granules, not all: read the piece
     * from the backing device, then lay the slot's valid granules over it. Pinned until then.
     */
    static final int MERGE = 8;

    private final SlotTable t;
    private final int node;
    private final int granule;
    private final CacheCounters counters;

    ReadDecision(SlotTable t, int node, int granule, CacheCounters counters) {
        this.t = t;
        this.node = node;
        this.granule = granule;
        this.counters = counters;
    }

    /**
     * What a cache request does with one piece of a block, in this order: {@link #HIT}; {@link #WAIT} (the slot is
     * filling and that fill reads the piece); a sub-block {@link #FILL} (cached, but the piece is not valid and no one
     * else holds the slot and it is clean: a random read fills every granule of the block not yet valid, a sequential
     * one the rest of the block from the piece on; nothing is evicted); a {@link #MERGE} (the slot holds newer data for
     * part of the piece: a write-back block written in part, which is never filled); for a block not cached that the
     * admission lets in (or let in already: {@link ReadPiece#admitted}), a {@link #FILL} of the piece's granules, or of
     * the whole block for a whole-block or sequential read, or a {@link #BYPASS} when no slot is free; else {@link
     * #READ_THROUGH}, remembered by the admission. The pinned slot, or -1, goes to {@code slots[i]}; a {@link #WAIT} or
     * {@link #FILL} adds {@code waiter} to the slot's fill.
     *
     * <p>Counted: hits, misses (waits, fills, read-throughs), read-throughs, bypasses.
     */
    int decide(ReadAdmission admission, ReadPiece p, FillWaiter waiter, int[] slots, int i) {
        int g0 = p.from / granule;
        int g1 = (p.to + granule - 1) / granule;
        int s = t.lookup(p.block);
        if (s >= 0) {
            int outcome = cached(s, g0, g1, p.blockBytes, p.sequential, waiter, slots, i);
            if (outcome != READ_THROUGH) {
                return outcome;
            }
        } else if (p.admitted || admission.fills(t, p.block, g0, g1, p.whole(), p.sequential)) {
            return fill(p.block, g0, g1, p.blockBytes, p.whole() || p.sequential, waiter, slots, i);
        }
        slots[i] = -1;
        return readThrough(admission, p.block, g0, g1);
    }

    /**
     * The decision for a read of bytes [from, to) of one block before any cache request exists: nothing is pinned,
     * filled or waited for. A hit is copied into {@code dst} ({@link #COPIED}; {@code dst} null: it may not be), a miss
     * the admission lets in is {@link #ADMITTED}, a miss read through {@link #READ_THROUGH}, anything else {@link
     * #NEEDS_REQUEST}.
     */
    int decideHere(
            ReadAdmission admission, long block, int from, int to, int blockBytes, boolean sequential, ByteBuf dst) {
        int g0 = from / granule;
        int g1 = (to + granule - 1) / granule;
        int s = t.lookup(block);
        if (s >= 0) {
            return copyHit(s, from, to, g0, g1, dst);
        }
        if (admission.fills(t, block, g0, g1, from == 0 && to == blockBytes, sequential)) {
            return ADMITTED;
        }
        return readThrough(admission, block, g0, g1);
    }

    private int readThrough(ReadAdmission admission, long block, int g0, int g1) {
        admission.readThrough(block, g0, g1);
        counters.readThrough(node);
        return READ_THROUGH;
    }

    /**
     * An admitted miss of a request: a slot filling the piece's granules, or the whole block ({@code ahead}: a whole
     * block, or a sequential stream reading the rest of it ahead); {@link #BYPASS} when every slot is in use.
     */
    private int fill(long block, int g0, int g1, int blockBytes, boolean ahead, FillWaiter waiter, int[] slots, int i) {
        int s = t.acquire();
        if (s < 0) {
            counters.bypass(node);
            slots[i] = -1;
            return BYPASS;
        }
        t.startFill(s, block, ahead ? 0 : g0, ahead ? granules(blockBytes) : g1);
        waitFor(s, waiter, slots, i);
        return FILL;
    }

    /**
     * A piece of cached slot s for a request: {@link #HIT}, {@link #WAIT}, a sub-block {@link #FILL}, a {@link #MERGE},
     * or {@link #READ_THROUGH} when the slot is filling other granules or in other hands and holds nothing newer for
     * the piece (nothing done yet).
     */
    private int cached(
            int s, int g0, int g1, int blockBytes, boolean sequential, FillWaiter waiter, int[] slots, int i) {
        if (t.covers(s, g0, g1)) {
            t.pin(s);
            counters.hit(node);
            slots[i] = s;
            return HIT;
        }
        if (t.fillReads(s, g0, g1)) {
            t.pin(s);
            waitFor(s, waiter, slots, i);
            return WAIT;
        }
        if (t.idleAndClean(s)) {
            // Never while someone else holds the slot: a reader copying or sending from it never sees its bytes change.
            t.pin(s);
            if (sequential) {
                t.startSubFill(s, g0, granules(blockBytes)); // the stream reads the rest of the block ahead
            } else {
                t.startFillOfMissing(s, granules(blockBytes));
            }
            waitFor(s, waiter, slots, i);
            return FILL;
        }
        if (t.holdsNewerData(s) && t.anyValid(s, g0, g1)) {
            // A dirty slot is never filled (a fill would race its writes and write-back): its other granules come from
            // the backing device, which is authoritative for them.
            t.pin(s);
            counters.miss(node);
            counters.readThrough(node);
            slots[i] = s;
            return MERGE;
        }
        return READ_THROUGH;
    }

    /**
     * A hit copied into {@code dst} under the partition's lock. Nothing can unmap, evict or rewrite the slot meanwhile (a
     * fill of other granules writes other bytes, or, refilling a clean block, the same ones).
     */
    private int copyHit(int s, int from, int to, int g0, int g1, ByteBuf dst) {
        if (dst == null || !t.covers(s, g0, g1)) {
            return NEEDS_REQUEST;
        }
        dst.writeBytes(t.view(s), from, to - from);
        t.used(s);
        counters.hit(node);
        return COPIED;
    }

    /** Granules of a block of {@code blockBytes} (computed only where a fill needs it: a division per read costs). */
    private int granules(int blockBytes) {
        return (blockBytes + granule - 1) / granule;
    }

    private void waitFor(int s, FillWaiter waiter, int[] slots, int i) {
        t.io(s).addWaiter(waiter);
        counters.miss(node);
        slots[i] = s;
    }
}
