package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One independent slice of a node's share of the cache: a lock over its {@link SlotTable}. Every method takes the lock
 * itself, and the lock covers lookup, pinning, eviction and slot state, never backing I/O or bulk copies; requests
 * parked for a slot are resumed after it is released. The bytes of a slot ({@link #view}) are copied outside the lock
 * by whoever holds the slot pinned or reserved. Lock order: a partition, then its node's pool, never the reverse.
 *
 * <p>The read decision for one piece of a block ({@link ReadDecision}) is made under the lock, for a cache request
 * ({@link #read}) and for a read of one block that may finish without one ({@link #readHere}); the steps of a
 * write-back write are {@link PartitionWrites}, under the same lock.
 */
final class CachePartition {
    private final ReentrantLock lock = new ReentrantLock();
    private final int node;
    /** Bytes per valid-data granule (4 KiB, or the device's logical block if larger). */
    private final int granule;

    private final DirtyAccount dirty;
    private final SlotTable t;
    private final ReadDecision reads;
    /**
     * Writes waiting for room under the device's hard dirty limit. Kept apart from those waiting for a slot: a slot
     * coming free does not help them, and waking them for it let them evict and refill each other's bases in a loop.
     */
    private final ParkedWrites waitingForRoom = new ParkedWrites();

    private final PartitionWrites writes;

    /**
     * Up to {@code setup.slots()} blocks, their memory taken from {@code setup.share()}'s pool as misses need it; the
     * caller joins the share to the pool once all of its partitions exist.
     */
    CachePartition(PartitionSetup setup) {
        this.node = setup.node();
        this.granule = setup.granule();
        this.dirty = setup.dirty();
        this.t = new SlotTable(this, setup);
        this.reads = new ReadDecision(t, node, granule, setup.counters());
        this.writes = new PartitionWrites(this, lock, t, dirty, waitingForRoom, granule);
    }

    int node() {
        return node;
    }

    int slots() {
        return t.slots();
    }

    /** The steps of a write-back write on this partition's blocks. */
    PartitionWrites writes() {
        return writes;
    }

    /** The memory of slot s, which the caller holds pinned or reserved. */
    ByteBuf view(int s) {
        return t.view(s);
    }

    /** The backing I/O of slot s (its fill range, its completion), which the caller holds pinned. */
    SlotIo io(int s) {
        return t.io(s);
    }

    /** The block slot s holds; the caller holds it pinned. */
    long blockOf(int s) {
        return t.blockOf(s);
    }

    /**
     * The first run of valid granules of slot s within [g0, g1), packed as {@code from << 32 | to}, or -1 when none is
     * there. The caller holds the slot pinned or reserved, so the answer holds until it lets go.
     */
    long validRun(int s, int g0, int g1) {
        lock.lock();
        try {
            return t.validRun(s, g0, g1);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Copies the valid granules among bytes [from, to) of slot s (pinned or reserved by the caller) to {@code dst} at
     * {@code at} onwards, run by run, each outside the lock; returns the bytes copied. The rest of {@code dst}'s range
     * is left as it is.
     */
    int copyValidBytes(int s, int from, int to, ByteBuf dst, int at) {
        int copied = 0;
        int g1 = (to + granule - 1) / granule;
        int g = from / granule;
        while (g < g1) {
            long run = validRun(s, g, g1);
            if (run < 0) {
                break;
            }
            int a = Math.max(from, (int) (run >>> 32) * granule);
            int b = Math.min(to, (int) run * granule);
            dst.setBytes(at + a - from, t.view(s), a, b - a);
            copied += b - a;
            g = (int) run;
        }
        return copied;
    }

    /**
     * The first run of granules of slot s within [g0, g1) newer than the backing device, as {@link #validRun}. The
     * caller is writing the slot back, so no write changes them until it is done.
     */
    long newerRun(int s, int g0, int g1) {
        lock.lock();
        try {
            return t.newerRun(s, g0, g1);
        } finally {
            lock.unlock();
        }
    }

    // ---- reads ----

    /** The read decision for one piece of a cache request, made under the lock: see {@link ReadDecision#decide}. */
    int read(ReadAdmission admission, ReadPiece piece, FillWaiter waiter, int[] slots, int i) {
        lock.lock();
        try {
            return reads.decide(admission, piece, waiter, slots, i);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The decision for a read within one block before any cache request exists, made under the lock (a hit is copied
     * into {@code dst} under it): see {@link ReadDecision#decideHere}.
     */
    int readHere(
            ReadAdmission admission, long block, int from, int to, int blockBytes, boolean sequential, ByteBuf dst) {
        lock.lock();
        try {
            return reads.decideHere(admission, block, from, to, blockBytes, sequential, dst);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The fill of slot s finished ({@code ok}: its granules were read); returns how many requests wait on it: hand each
     * the result ({@link SlotIo#waiter}). A failed fill's slot leaves the map.
     */
    int fillDone(int s, boolean ok) {
        lock.lock();
        try {
            t.filled(s, ok);
            return t.io(s).takeWaiters();
        } finally {
            unlockAndWake();
        }
    }

    void unpin(int s) {
        lock.lock();
        try {
            t.unpin(s);
        } finally {
            unlockAndWake();
        }
    }

    /**
     * After a write-through write or an unmap reached the backing device, for bytes [from, to) of {@code block}: a clean
     * block no one uses forgets those granules (the next read fills them again); one written whole, in use or being
     * filled leaves the map (its possibly older data serves only the requests already holding or waiting on it). A
     * dirty block (write-back) is never dropped for a write; an unmap drops it when it covers it whole (its data is
     * superseded, and writing it back would allocate what the backing device just deallocated) and not being written
     * back, else zeroes those bytes in it, so the next write-back writes zeros.
     */
    void invalidate(long block, int from, int to, boolean whole, boolean unmap) {
        lock.lock();
        try {
            int s = t.lookup(block);
            if (s < 0) {
                return;
            }
            if (t.isDirty(s)) {
                if (unmap) {
                    if (whole && !t.writingBack(s)) {
                        t.unmapSlot(s);
                    } else {
                        t.zero(s, from, to);
                    }
                }
            } else if (t.idleAndClean(s) && !whole) {
                t.forget(s, from, to);
            } else {
                t.unmapSlot(s);
            }
        } finally {
            unlockAndWake();
        }
    }

    // ---- write-back batches ----

    /** Whether the block is cached here dirty (not yet on the backing device). */
    boolean isDirty(long block) {
        lock.lock();
        try {
            int s = t.lookup(block);
            return s >= 0 && t.isDirty(s);
        } finally {
            lock.unlock();
        }
    }

    /** The dirty blocks no batch is writing go to {@code blocks} from index {@code n}. Returns the new count. */
    int dirtyBlocks(long[] blocks, int n) {
        lock.lock();
        try {
            return t.dirtyBlocks(blocks, n);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts writing back the block's current version: marked and pinned, its {@link SlotIo} returned; null when it is
     * no longer dirty here (written back, unmapped) or already being written.
     */
    SlotIo beginWriteback(long block) {
        lock.lock();
        try {
            return t.beginWriteback(block);
        } finally {
            lock.unlock();
        }
    }

    /** The write-back of slot s finished: clean if {@code ok}, else still dirty; unpinned. Returns its block. */
    long writebackDone(int s, boolean ok) {
        lock.lock();
        try {
            long block = t.blockOf(s);
            t.wroteBack(s, ok);
            return block;
        } finally {
            unlockAndWake();
        }
    }

    /** Whether a dirty block not being written back has been dirty since {@code cutoff} (System.nanoTime) or before. */
    boolean hasDirtySince(long cutoff) {
        lock.lock();
        try {
            return t.hasDirtySince(cutoff);
        } finally {
            lock.unlock();
        }
    }

    // ---- parked writes ----

    /** Unlocks, then resumes the writes parked for a slot if one came free meanwhile. */
    void unlockAndWake() {
        boolean due = t.takeWakeDue();
        lock.unlock();
        if (due) {
            wakeParked();
        }
    }

    /** Resumes the writes parked for a slot. */
    void wakeParked() {
        WriteBackWrite r;
        lock.lock();
        try {
            r = t.takeParked();
            t.takeWakeDue();
        } finally {
            lock.unlock();
        }
        ParkedWrites.resumeAll(r);
    }

    /** Resumes the writes waiting for dirty room (the device's dirty bytes went down). */
    void wakeForDirtyRoom() {
        WriteBackWrite r;
        lock.lock();
        try {
            r = waitingForRoom.takeAll();
        } finally {
            lock.unlock();
        }
        ParkedWrites.resumeAll(r);
    }

    // ---- the pool, diagnostics ----

    /**
     * Gives up to {@code wanted} blocks of memory back to the pool: free slots' first, then the least recently used
     * clean blocks' (evicted). Pinned, filling and dirty blocks stay. Returns how many were given.
     */
    int giveBack(int wanted) {
        lock.lock();
        try {
            return t.giveBack(wanted);
        } finally {
            lock.unlock();
        }
    }

    /** Slots pinned now (by reads in flight, buffers served in place, write-backs). */
    int pinnedSlots() {
        lock.lock();
        try {
            return t.pinnedSlots();
        } finally {
            lock.unlock();
        }
    }

    /** Slot states, for diagnosing a stuck request. */
    void describe(StringBuilder sb) {
        lock.lock();
        try {
            sb.append("parked=").append(t.hasParked() || !waitingForRoom.isEmpty());
            t.describe(sb);
        } finally {
            lock.unlock();
        }
    }
}
