package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;

/**
 * The slots of one partition and their state: block map (an open-addressing {@link LongIntMap}, no boxing), per-slot
 * state, pins, dirty and write-back flags, versions and valid granules, a free stack, spare slots waiting for pool
 * memory, and the LRU list. Not thread-safe: only its {@link CachePartition} calls it, under the partition's lock.
 *
 * <p>A slot is on the LRU list only when it is valid, clean, mapped and unpinned, so the LRU tail is always evictable;
 * pinned (in use), filling and dirty slots are never evicted. A slot taken out of the map while pinned (invalidated
 * or replaced) is an orphan and goes to the free list on its last unpin.
 */
final class SlotTable {
    static final byte FREE = 0;
    static final byte FILLING = 1;
    static final byte VALID = 2;
    /** Taken for a copy-on-write update; not in the map yet. */
    static final byte RESERVED = 3;

    private final CachePartition owner;
    private final int node;
    private final int slots;
    private final int granule;
    private final SlotIo[] io;
    private final LongIntMap map;
    private final long[] blockOf;
    private final byte[] state;
    private final boolean[] mapped;
    private final DirtySlots dirty;
    private final int[] pins;
    private final int[] version;
    /**
     * Valid granules per slot: a fill marks what it read, a write what it wrote (a copy keeps its base's too). The
     * backing device is authoritative for a slot's other granules, dirty or not.
     */
    private final GranuleMap valid;

    private final int granulesPerBlock;
    /** Free slots, spare slots' memory and the LRU list. */
    private final SlotSupply supply;

    private final CacheCounters counters;
    /** Requests waiting for a slot (write-back writes only). */
    private final ParkedWrites parked = new ParkedWrites();
    /** A slot became reusable while requests were parked: wake them after unlocking. */
    private boolean wakeDue;

    /** {@code owner} is the partition whose slots these are (the slots' {@link SlotIo}s report to it). */
    SlotTable(CachePartition owner, PartitionSetup setup) {
        this.owner = owner;
        this.node = setup.node();
        this.slots = setup.slots();
        this.supply = new SlotSupply(setup.share(), slots);
        this.granule = setup.granule();
        this.granulesPerBlock = setup.blockSize() / granule;
        this.valid = new GranuleMap(slots, granulesPerBlock);
        this.counters = setup.counters();
        this.dirty = new DirtySlots(slots, setup.dirty(), granulesPerBlock, granule);
        io = new SlotIo[slots];
        map = new LongIntMap(slots);
        blockOf = new long[slots];
        state = new byte[slots];
        mapped = new boolean[slots];
        pins = new int[slots];
        version = new int[slots];
        for (int s = 0; s < slots; s++) {
            io[s] = new SlotIo(setup.slotSink(), owner, s);
        }
    }

    int slots() {
        return slots;
    }

    int lookup(long block) {
        return map.get(block);
    }

    ByteBuf view(int s) {
        return supply.view(s);
    }

    SlotIo io(int s) {
        return io[s];
    }

    long blockOf(int s) {
        return blockOf[s];
    }

    int version(int s) {
        return version[s];
    }

    byte state(int s) {
        return state[s];
    }

    boolean isDirty(int s) {
        return dirty.is(s);
    }

    boolean writingBack(int s) {
        return dirty.writingBack(s);
    }

    /** Whether granules [g0, g1) of slot s are valid. */
    boolean covers(int s, int g0, int g1) {
        return valid.covers(s, g0, g1);
    }

    /** Whether any granule of [g0, g1) of slot s is valid. */
    boolean anyValid(int s, int g0, int g1) {
        return valid.firstMarked(s, g0, g1) < g1;
    }

    /**
     * The first run of valid granules of slot s within [g0, g1), packed as {@code from << 32 | to}, or -1 when none is
     * valid there.
     */
    long validRun(int s, int g0, int g1) {
        return valid.firstRun(s, g0, g1);
    }

    /** The first run of granules of slot s within [g0, g1) newer than the backing device (see {@link #validRun}). */
    long newerRun(int s, int g0, int g1) {
        return dirty.newerRun(s, g0, g1);
    }

    /**
     * Whether the holder of slot s's only pin may write into it in place: mapped, valid (not filling) and not being
     * written back, so no one else reads its memory outside the lock.
     */
    boolean writableInPlace(int s) {
        return mapped[s] && state[s] == VALID && pins[s] == 1 && !dirty.writingBack(s);
    }

    /** Granules [g0, g1) of slot s were written in place (whole): valid, newer than the device, a new version. */
    void wroteInPlace(int s, int g0, int g1) {
        valid.mark(s, g0, g1);
        dirty.add(s, g0, g1);
        version[s]++;
    }

    /** Whether slot s holds data the backing device may not have yet: dirty, or being written back. */
    boolean holdsNewerData(int s) {
        return dirty.is(s) || dirty.writingBack(s);
    }

    /** Whether slot s is being filled and that fill reads granules [g0, g1). */
    boolean fillReads(int s, int g0, int g1) {
        return state[s] == FILLING && io[s].fillCovers(g0, g1);
    }

    /** Whether no request holds slot s and it holds no data newer than the backing device (a fill may go into it). */
    boolean idleAndClean(int s) {
        return pins[s] == 0 && !dirty.is(s) && !dirty.writingBack(s) && state[s] == VALID;
    }

    /** Counts a read miss; whether the partition is settled ({@link SlotSupply#settled}). */
    boolean settled() {
        return supply.settled();
    }

    /** Whether a new block can take a slot without evicting one still in use ({@link SlotSupply#roomForNewBlock}). */
    boolean roomForNewBlock() {
        return supply.roomForNewBlock();
    }

    /** A free slot, or the LRU tail evicted; -1 when every slot is pinned, filling or dirty. Pinned once. */
    int acquire() {
        int s = supply.takeFree();
        if (s < 0) {
            if (supply.lruTail() < 0) {
                return -1;
            }
            s = evictTail();
        }
        state[s] = RESERVED;
        valid.clear(s);
        pins[s] = 1;
        dirty.clean(s);
        version[s]++;
        return s;
    }

    /** Takes the LRU tail (valid, clean, unpinned) out of the list and the map; its memory stays with the slot. */
    private int evictTail() {
        int s = supply.lruTail();
        supply.evicted(s);
        map.remove(blockOf[s]);
        mapped[s] = false;
        counters.eviction(node);
        return s;
    }

    /**
     * Gives up to {@code wanted} blocks of memory back to the pool: free slots' first, then the least recently used
     * clean blocks' (evicted). Pinned, filling and dirty blocks stay. Returns how many were given.
     */
    int giveBack(int wanted) {
        int given = supply.unbindFree(wanted);
        while (given < wanted && supply.lruTail() >= 0) {
            int s = evictTail();
            state[s] = FREE;
            valid.clear(s);
            version[s]++;
            supply.unbind(s);
            given++;
        }
        return given;
    }

    /** Maps a freshly acquired slot as FILLING granules [from, to) of {@code block}; the caller holds its pin. */
    void startFill(int s, long block, int from, int to) {
        blockOf[s] = block;
        mapped[s] = true;
        map.put(block, s);
        startSubFill(s, from, to);
    }

    /** A slot already mapped gets granules [from, to) filled; the caller holds its pin (and no one else does). */
    void startSubFill(int s, int from, int to) {
        state[s] = FILLING;
        io[s].fillFrom = from;
        io[s].fillTo = to;
    }

    /** A mapped slot gets every granule of its first {@code all} that is not valid filled, in one read. */
    void startFillOfMissing(int s, int all) {
        startSubFill(s, valid.firstUnmarked(s, 0, all), valid.unmarkedEnd(s, 0, all));
    }

    /** The fill of slot s finished: what it read is valid, or, failed, the slot leaves the map. */
    void filled(int s, boolean ok) {
        state[s] = VALID;
        if (ok) {
            valid.mark(s, io[s].fillFrom, io[s].fillTo);
        } else {
            unmapSlot(s);
        }
    }

    /** Bytes [from, to) of slot s are no longer valid (the backing device changed under them). */
    void forget(int s, int from, int to) {
        valid.clear(s, from / granule, (to + granule - 1) / granule);
    }

    /** Zeroes bytes [from, to) of a dirty slot in place (an unmap), as a new version of it. */
    void zero(int s, int from, int to) {
        supply.view(s).setZero(from, to - from);
        version[s]++;
    }

    /** A hit served without a pin: the slot becomes the most recently used. */
    void used(int s) {
        supply.used(s);
    }

    void pin(int s) {
        if (pins[s]++ == 0) {
            supply.leaveLru(s);
        }
    }

    /** Drops one pin; true when the slot became available for reuse (free list or LRU). */
    boolean unpin(int s) {
        if (--pins[s] > 0) {
            return false;
        }
        if (pins[s] < 0) {
            throw new IllegalStateException("unpin of unpinned slot " + s);
        }
        if (!mapped[s]) {
            release(s);
            return true;
        }
        if (state[s] == VALID && !dirty.is(s)) {
            toLru(s);
            return true;
        }
        return false;
    }

    private void toLru(int s) {
        supply.toLru(s);
        wakeDue |= !parked.isEmpty();
    }

    private void release(int s) {
        state[s] = FREE;
        dirty.clean(s);
        supply.free(s);
        wakeDue |= !parked.isEmpty();
    }

    /** Whether parked requests must be woken (clears the flag). */
    boolean takeWakeDue() {
        boolean w = wakeDue;
        wakeDue = false;
        return w;
    }

    /** Takes the slot out of the map; freed now if unpinned, else on its last unpin. */
    void unmapSlot(int s) {
        if (!mapped[s]) {
            return;
        }
        map.remove(blockOf[s]);
        mapped[s] = false;
        dirty.clean(s); // superseded: a batch never writes an unmapped slot back, so it is no longer dirty data
        supply.leaveLru(s);
        if (pins[s] == 0) {
            release(s);
        }
    }

    /** Installs a reserved, pinned slot holding the whole block as its current version (replacing any other). */
    void install(int s, long block, boolean isDirty) {
        valid.mark(s, 0, granulesPerBlock);
        put(s, block, isDirty, 0, granulesPerBlock);
    }

    /** A reserved, pinned slot gets the valid granules of slot {@code base} (a copy of its data is made into it). */
    void inheritValid(int base, int s) {
        valid.copy(base, s);
    }

    /**
     * Installs a reserved, pinned copy as the block's current dirty version (replacing its base, -1: none): its granules
     * copied from the base ({@link #inheritValid}) and [g0, g1), just written, are valid; the base's granules newer than
     * the backing device and [g0, g1) are newer.
     */
    void installCopy(int s, long block, int base, int g0, int g1) {
        valid.mark(s, g0, g1);
        if (base >= 0) {
            dirty.inherit(base, s);
        }
        put(s, block, true, g0, g1);
    }

    /** Maps slot s as the block's current version, dirty with granules [g0, g1) newer, or clean. */
    private void put(int s, long block, boolean isDirty, int g0, int g1) {
        int old = map.get(block);
        long since = isDirty ? dirty.sinceFor(old) : 0;
        if (old >= 0) {
            unmapSlot(old);
        }
        state[s] = VALID;
        blockOf[s] = block;
        mapped[s] = true;
        if (isDirty) {
            dirty.mark(s, since, g0, g1);
        } else {
            dirty.clean(s);
        }
        map.put(block, s);
    }

    /** Returns a reserved slot that will not be installed. */
    void abandon(int s) {
        pins[s] = 0;
        release(s);
    }

    /** The dirty blocks no batch is writing go to {@code blocks} from index {@code n}. Returns the new count. */
    int dirtyBlocks(long[] blocks, int n) {
        for (int s = 0; s < slots; s++) {
            if (mapped[s] && state[s] == VALID && dirty.is(s) && !dirty.writingBack(s)) {
                blocks[n++] = blockOf[s];
            }
        }
        return n;
    }

    /**
     * Marks the block's current version as being written back and pins it, if it is dirty and not being written back;
     * returns its {@link SlotIo}, or null.
     */
    SlotIo beginWriteback(long block) {
        int s = map.get(block);
        if (s < 0 || state[s] != VALID || !dirty.beginWriteback(s)) {
            return null;
        }
        pin(s);
        return io[s];
    }

    /** The write-back of slot s finished: clean if it succeeded (else still dirty, for the next batch); unpinned. */
    void wroteBack(int s, boolean ok) {
        dirty.endWriteback(s, ok);
        unpin(s);
    }

    /** Whether a dirty block not being written back has been dirty since {@code cutoff} (System.nanoTime) or before. */
    boolean hasDirtySince(long cutoff) {
        return dirty.anySince(cutoff);
    }

    void park(WriteBackWrite r) {
        parked.add(r);
        supply.awaitBlockIfSpare(owner);
    }

    /** Takes the whole list of requests waiting for a slot (resume it after unlocking), or null. */
    WriteBackWrite takeParked() {
        return parked.takeAll();
    }

    boolean hasParked() {
        return !parked.isEmpty();
    }

    int pinnedSlots() {
        int n = 0;
        for (int s = 0; s < slots; s++) {
            n += pins[s] > 0 ? 1 : 0;
        }
        return n;
    }

    /** Per slot: state, m(apped), d(irty), w(riting back), pins. */
    void describe(StringBuilder sb) {
        sb.append(" free=")
                .append(supply.freeCount())
                .append(" lru=")
                .append(supply.lruOrder().length)
                .append(" slots:");
        for (int s = 0; s < slots; s++) {
            sb.append(' ')
                    .append(state[s])
                    .append(mapped[s] ? "m" : "-")
                    .append(dirty.is(s) ? "d" : "")
                    .append(dirty.writingBack(s) ? "w" : "")
                    .append('/')
                    .append(pins[s]);
        }
    }

    /** Slots in LRU order, least recently used first (tests). */
    int[] lruOrder() {
        return supply.lruOrder();
    }

    int freeCount() {
        return supply.freeCount();
    }
}
