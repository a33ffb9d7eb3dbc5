package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The steps of a write-back write ({@link WriteBackWrite}) on one partition's blocks, each under the partition's lock:
 * a slot for a block written whole, the base of a block written in part and the slot for its new copy, a write into
 * the base in place, and the copy installed as the block's dirty current version or dropped. A step that finds no slot,
 * or no room under the device's hard dirty limit, parks the write on the partition.
 */
final class PartitionWrites {
    /** A write-back step found no slot: the write is parked until one comes free. */
    static final int PARKED = -1;
    /** A write-back step found the device at its hard dirty limit: the write is parked until a batch cleans blocks. */
    static final int PARKED_FOR_ROOM = -2;
    /** What {@link #pinBase} did: the cached block is pinned as the base, or the block is not cached (no base). */
    static final int BASE_READY = 0;
    /** The base is pinned and being filled: the write waits on that fill. */
    static final int BASE_FILLING = 1;
    /**
     * The block was not cached and the write covers granules in part: a new base filling them was mapped (the write
     * waits on it; the caller issues the fill).
     */
    static final int BASE_FILL = 2;

    private final CachePartition partition;
    private final ReentrantLock lock;
    private final SlotTable t;
    private final DirtyAccount dirty;
    private final ParkedWrites waitingForRoom;
    private final int granule;

    /** The write steps of {@code partition}: its lock, its slot table, its device's dirty account and room waiters. */
    PartitionWrites(
            CachePartition partition,
            ReentrantLock lock,
            SlotTable t,
            DirtyAccount dirty,
            ParkedWrites waitingForRoom,
            int granule) {
        this.partition = partition;
        this.lock = lock;
        this.t = t;
        this.dirty = dirty;
        this.waitingForRoom = waitingForRoom;
        this.granule = granule;
    }

    /**
     * A slot for a block written whole: reserved and pinned (copy into {@link CachePartition#view}, then {@link #installWritten}), or
     * {@link #PARKED} / {@link #PARKED_FOR_ROOM} with the write parked.
     */
    int reserveForWrite(WriteBackWrite w) {
        int s = PARKED_FOR_ROOM;
        lock.lock();
        try {
            // every block written becomes a new dirty block: no slot work (fills, evictions) without room for it
            if (!dirty.admitsBlock()) {
                waitingForRoom.add(w);
            } else if ((s = t.acquire()) < 0) {
                t.park(w);
                s = PARKED;
            }
        } finally {
            if (s >= 0) {
                lock.unlock();
            } else {
                partition.unlockAndWake();
            }
        }
        return s;
    }

    /** Installs reserved slot s as the block's dirty current version and unpins it. */
    void installWritten(int s, long block) {
        lock.lock();
        try {
            t.install(s, block, true);
            t.unpin(s);
        } finally {
            partition.unlockAndWake();
        }
    }

    /**
     * Pins the base of a block written in part: the cached block, whole or in part, clean or dirty. When the block is
     * not cached and the write covers granules [fillFrom, fillTo) in part (none: fillFrom == fillTo), a new slot is
     * mapped filling them, as the base: a write to the same granules meanwhile finds it and waits, so none of them is
     * read from the backing device around another's write. Tells {@code w} the base slot and its version ({@link
     * WriteBackWrite#pinnedBase}), slot -1 when there is none. Returns {@link #BASE_READY}, {@link #BASE_FILLING} or
     * {@link #BASE_FILL} ({@code w} waits on the fill), or {@link #PARKED} / {@link #PARKED_FOR_ROOM} with the write
     * parked.
     */
    int pinBase(long block, int fillFrom, int fillTo, WriteBackWrite w) {
        lock.lock();
        try {
            if (!dirty.admitsBlock()) {
                waitingForRoom.add(w);
                return PARKED_FOR_ROOM;
            }
            int b = t.lookup(block);
            if (b >= 0) {
                t.pin(b);
                w.pinnedBase(b, t.version(b));
                if (t.state(b) == SlotTable.FILLING) {
                    t.io(b).addWaiter(w);
                    return BASE_FILLING;
                }
                return BASE_READY;
            }
            if (fillFrom == fillTo) {
                w.pinnedBase(-1, 0);
                return BASE_READY;
            }
            b = t.acquire();
            if (b < 0) {
                t.park(w);
                return PARKED;
            }
            t.startFill(b, block, fillFrom, fillTo);
            t.io(b).addWaiter(w);
            w.pinnedBase(b, t.version(b));
            return BASE_FILL;
        } finally {
            partition.unlockAndWake();
        }
    }

    /**
     * A slot for the new copy of a block written in part, whose base {@code w} holds pinned (-1: none): reserved and
     * pinned, with the base's valid granules ({@link CachePartition#copyValidBytes} copies their bytes); or, without a slot (or without
     * dirty room), the base unpinned and {@link #PARKED} / {@link #PARKED_FOR_ROOM}.
     */
    int reserveCopy(int base, WriteBackWrite w) {
        int s;
        lock.lock();
        try {
            boolean room = dirty.admitsBlock();
            s = room ? t.acquire() : -1;
            if (s >= 0) {
                if (base >= 0) {
                    t.inheritValid(base, s);
                }
            } else {
                if (base >= 0) {
                    // The base may be the only reusable slot and this request needs two. The slot this unpin frees
                    // wakes nobody: the requests parked before need two as well, and waking them made two such writes
                    // take it from each other for ever (each evicting the other's base to fill its own) on the thread
                    // whose write-backs would free slots. They wait, like this one, for the write-back the caller
                    // asks for, or for another unpin.
                    t.unpin(base);
                    t.takeWakeDue();
                }
                if (room) {
                    t.park(w);
                    s = PARKED;
                } else {
                    waitingForRoom.add(w); // without dirty room it waits for room instead
                    s = PARKED_FOR_ROOM;
                }
            }
        } finally {
            lock.unlock();
        }
        return s;
    }

    /**
     * Writes {@code n} bytes of {@code src} from {@code srcIndex} into {@code base} at {@code at}, whole granules or
     * granules it holds, under the lock, if {@code base} is still the block's version {@code baseVersion}, the caller's
     * pin is its only one and no write-back is writing it (so no reader or writer sees it change) and, if it is clean,
     * one more dirty block stays within the hard limit. Then the base is the block's dirty current version and is
     * unpinned; false (nothing done, still pinned) otherwise.
     */
    boolean writeInPlace(int base, int baseVersion, long block, int at, ByteBuf src, int srcIndex, int n) {
        lock.lock();
        try {
            if (t.lookup(block) != base
                    || t.version(base) != baseVersion
                    || !t.writableInPlace(base)
                    || !(t.isDirty(base) || dirty.hasRoomForBlock())) {
                return false;
            }
            t.view(base).setBytes(at, src, srcIndex, n);
            t.wroteInPlace(base, at / granule, (at + n + granule - 1) / granule);
            t.unpin(base);
            return true;
        } finally {
            partition.unlockAndWake();
        }
    }

    /** Whether granule g of slot s, pinned or reserved by the caller, is valid. */
    boolean holdsGranule(int s, int g) {
        lock.lock();
        try {
            return t.covers(s, g, g + 1);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Installs the copy in slot s, granules [g0, g1) just written into it, as the block's dirty current version if
     * {@code base} still is that version ({@code baseVersion}, unchanged; base -1: if the block is still not cached);
     * else drops the copy (the caller retries the block). Unpins both; true when installed.
     */
    boolean installCopy(int s, long block, int base, int baseVersion, int g0, int g1) {
        lock.lock();
        try {
            int now = t.lookup(block);
            boolean current = base < 0 ? now < 0 : now == base && t.version(base) == baseVersion;
            if (current) {
                t.installCopy(s, block, base, g0, g1);
                t.unpin(s);
            } else {
                t.abandon(s);
            }
            if (base >= 0) {
                t.unpin(base);
            }
            return current;
        } finally {
            partition.unlockAndWake();
        }
    }

    /** Drops the copy in slot s and unpins its base (-1: none): the write failed. */
    void abandonCopy(int s, int base) {
        lock.lock();
        try {
            t.abandon(s);
            if (base >= 0) {
                t.unpin(base);
            }
        } finally {
            partition.unlockAndWake();
        }
    }
}
