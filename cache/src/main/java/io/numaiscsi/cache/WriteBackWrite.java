package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.numa.DataTouches;

/**
 * A write under write-back: one block at a time. A small write to a cached block that no one else holds and no
 * write-back is writing goes into it in place, under its partition's lock; otherwise the written block becomes a fresh
 * dirty copy (copy-on-write, so readers never see a half-updated block). A block written in part keeps what its cached
 * base holds (its valid granules, clean or dirty; nothing when it is not cached) plus the written granules, and nothing
 * is read for it unless the write covers a granule in part that the base does not hold: then that granule (at most one
 * at each end) is read from the backing device first, into a new base when the block is not cached, else into the
 * copy. The new copy is installed only if the base is still current (else the block is retried). Without a free slot,
 * or when one more dirty block would pass the device's hard dirty limit, the write parks on the partition and asks for
 * a write-back batch; it resumes when a slot comes free. A FUA write then flushes everything before it completes.
 */
final class WriteBackWrite extends RoutedRequest implements IoCompletion, FillWaiter {
    /** The most a write puts into a cached block in place, under its partition's lock. */
    static final int IN_PLACE_LIMIT = 64 * 1024;

    private final RequestPool<WriteBackWrite> pool;
    private final CacheSpace space;
    private final FillCoordinator fills;
    private final WriteBackScheduler writeBacks;
    private final int blockSize;
    private final int granule;
    int base;
    boolean fua;
    private long firstBlock;
    private int blocks;
    /** The block being written, its base slot and the base's version at pin time. */
    private int cursor;

    private int baseSlot;
    private int baseVersion;
    /** The new copy of the block being written in part, while the granules it covers in part are read into it. */
    private int copySlot;

    private boolean readingEdges;
    /** Next in its partition's parked list or in a resume queue. */
    WriteBackWrite nextParked;

    WriteBackWrite(
            RequestPool<WriteBackWrite> pool, CacheSpace space, FillCoordinator fills, WriteBackScheduler writeBacks) {
        this.pool = pool;
        this.space = space;
        this.fills = fills;
        this.writeBacks = writeBacks;
        this.blockSize = space.blockSize;
        this.granule = space.granule;
    }

    @Override
    public void reset() {
        super.reset();
        nextParked = null;
        readingEdges = false;
    }

    @Override
    void start() {
        firstBlock = offset / blockSize;
        blocks = length == 0 ? 0 : (int) ((offset + length - 1) / blockSize - firstBlock + 1);
        cursor = 0;
        step();
    }

    /** A slot came free in the partition this write parked on. */
    void resume() {
        step();
    }

    private void step() {
        CachePartition parkedOn = null;
        boolean overDirtyLimit = false;
        while (cursor < blocks) {
            long block = firstBlock + cursor;
            CachePartition p = space.partitionOf(block);
            long start = pieceStart(block);
            int n = (int) (pieceEnd(block) - start);
            int inBlock = (int) (start - block * blockSize);
            int done;
            if (inBlock == 0 && n == space.blockBytes(block)) {
                int s = p.writes().reserveForWrite(this);
                if (s >= 0) {
                    int from = base + (int) (start - offset);
                    p.view(s).setBytes(0, buf, from, n);
                    space.touches.touched(DataTouches.Kind.COPY, buf, from, n);
                    space.touches.touched(DataTouches.Kind.COPY, p.node(), n);
                    p.writes().installWritten(s, block);
                    cursor++;
                    continue;
                }
                done = s;
            } else {
                long ends = endsToRead(p, -1, inBlock, inBlock + n, space.blockBytes(block));
                done = p.writes().pinBase(block, (int) (ends >>> 32), (int) ends, this);
                if (done == PartitionWrites.BASE_FILLING) {
                    return; // blockReady goes on
                }
                if (done == PartitionWrites.BASE_FILL) {
                    fills.issueFill(p, baseSlot, block);
                    return; // blockReady goes on
                }
                if (done == PartitionWrites.BASE_READY) {
                    if (!apply(p, block)) {
                        return;
                    }
                    continue;
                }
            }
            parkedOn = p;
            overDirtyLimit = done == PartitionWrites.PARKED_FOR_ROOM;
            break;
        }
        if (parkedOn != null) {
            // another thread may already have resumed this request: touch no field from here on
            wakeIfDirtyRoomCameMeanwhile(parkedOn, overDirtyLimit);
            writeBacks.requestWriteback(); // make dirty blocks clean so slots come free
            return;
        }
        if (fua) {
            writeBacks.flush(this);
        } else {
            finish(IoStatus.OK);
        }
    }

    /** The partition pinned slot {@code s}, at {@code version}, as the base of the block being written (-1: none). */
    void pinnedBase(int s, int version) {
        baseSlot = s;
        baseVersion = version;
    }

    /**
     * A write parked for dirty room is woken by the batch that cleans blocks, but that batch may have
     * cleaned them (in other partitions) and looked for parked requests between this write's check and its park.
     * Parked first, checked second: either the check sees the room or the batch's wake-up sees the parked request.
     */
    private void wakeIfDirtyRoomCameMeanwhile(CachePartition p, boolean overDirtyLimit) {
        if (overDirtyLimit && space.dirty.hasRoomForBlock()) {
            p.wakeForDirtyRoom();
        }
    }

    /** The fill the base was waiting on finished (or failed: so does the write). */
    @Override
    public void blockReady(IoStatus st) {
        CachePartition p = space.partitionOf(firstBlock + cursor);
        if (st != IoStatus.OK) {
            p.unpin(baseSlot);
            finish(st);
            return;
        }
        if (apply(p, firstBlock + cursor)) {
            step();
        }
    }

    /**
     * The base pinned (or none: then the write covers no granule in part): takes a slot for the new copy and, where the
     * write covers a granule in part that the base does not hold, reads that granule into it first; the base's version
     * check at install makes that read safe (a write to the block meanwhile makes this one retry). True when the block
     * is done or to be retried; false when the write parked (no slot) or waits for that read.
     */
    private boolean apply(CachePartition p, long block) {
        if (writeInPlace(p, block)) {
            return true;
        }
        int s = p.writes().reserveCopy(baseSlot, this);
        if (s < 0) {
            // parked: another thread may already have resumed this request
            wakeIfDirtyRoomCameMeanwhile(p, s == PartitionWrites.PARKED_FOR_ROOM);
            writeBacks.requestWriteback();
            return false;
        }
        int inBlock = (int) (pieceStart(block) - block * blockSize);
        int end = (int) (pieceEnd(block) - block * blockSize);
        long ends = endsToRead(p, s, inBlock, end, space.blockBytes(block));
        if (ends != 0) {
            copySlot = s;
            readingEdges = true;
            fills.readGranules(p, s, block, (int) (ends >>> 32), (int) ends, this);
            return false; // ioComplete goes on; touch no field from here on
        }
        install(p, s, block);
        return true;
    }

    /**
     * Writes the piece straight into the base when the partition allows it ({@link PartitionWrites#writeInPlace}): at
     * most {@link #IN_PLACE_LIMIT} bytes (they are copied under the partition's lock) covering no granule in part that
     * the base does not hold. True when written.
     */
    private boolean writeInPlace(CachePartition p, long block) {
        long start = pieceStart(block);
        int n = (int) (pieceEnd(block) - start);
        int inBlock = (int) (start - block * blockSize);
        if (baseSlot < 0
                || n > IN_PLACE_LIMIT
                || endsToRead(p, baseSlot, inBlock, inBlock + n, space.blockBytes(block)) != 0) {
            return false;
        }
        int from = base + (int) (start - offset);
        if (!p.writes().writeInPlace(baseSlot, baseVersion, block, inBlock, buf, from, n)) {
            return false;
        }
        space.touches.touched(DataTouches.Kind.COPY, buf, from, n);
        space.touches.touched(DataTouches.Kind.COPY, p.node(), n);
        cursor++;
        return true;
    }

    /** Where this write's bytes in {@code block} begin, on the device. */
    private long pieceStart(long block) {
        return Math.max(offset, block * blockSize);
    }

    /** Where this write's bytes in {@code block} end, on the device. */
    private long pieceEnd(long block) {
        return Math.min(offset + length, (block + 1) * blockSize);
    }

    /**
     * The granules to read before writing bytes [inBlock, end) of a block of {@code blockBytes}: the granule at each end
     * that the write covers in part and slot {@code s} (-1: none) does not hold, and when both ends are read, the
     * granules between them too (one read; the write covers them). Packed as {@code from << 32 | to}; 0 for none.
     */
    private long endsToRead(CachePartition p, int s, int inBlock, int end, int blockBytes) {
        int g0 = inBlock / granule;
        int g1 = (end + granule - 1) / granule;
        boolean head = inBlock % granule != 0 && (s < 0 || !p.writes().holdsGranule(s, g0));
        boolean tail =
                end % granule != 0 && end != blockBytes && (s < 0 || !p.writes().holdsGranule(s, g1 - 1));
        if (!head && !tail) {
            return 0;
        }
        return (long) (head ? g0 : g1 - 1) << 32 | (tail ? g1 : g0 + 1);
    }

    /** The granules the write covers in part arrived in the copy (or failed). */
    private void edgesRead(IoStatus st) {
        long block = firstBlock + cursor;
        CachePartition p = space.partitionOf(block);
        if (st != IoStatus.OK) {
            p.writes().abandonCopy(copySlot, baseSlot);
            finish(st);
            return;
        }
        install(p, copySlot, block);
        step();
    }

    /**
     * Copies the base's valid granules and then the new bytes into copy {@code s}, and installs it if the base is
     * still current (the block is done), else drops it (the block is retried).
     */
    private void install(CachePartition p, int s, long block) {
        long start = pieceStart(block);
        int n = (int) (pieceEnd(block) - start);
        int inBlock = (int) (start - block * blockSize);
        ByteBuf copy = p.view(s);
        int kept = baseSlot < 0 ? 0 : p.copyValidBytes(baseSlot, 0, space.blockBytes(block), copy, 0);
        int from = base + (int) (start - offset);
        copy.setBytes(inBlock, buf, from, n);
        space.touches.touched(DataTouches.Kind.COPY, p.node(), 2L * kept + n); // base to copy, then the new bytes in
        space.touches.touched(DataTouches.Kind.COPY, buf, from, n);
        if (p.writes()
                .installCopy(
                        s, block, baseSlot, baseVersion, inBlock / granule, (inBlock + n + granule - 1) / granule)) {
            cursor++;
        }
    }

    /** The FUA flush, or the read of the granules a write covers in part, finished. */
    @Override
    public void ioComplete(IoStatus st) {
        if (readingEdges) {
            readingEdges = false;
            edgesRead(st);
            return;
        }
        finish(st);
    }

    private void finish(IoStatus st) {
        IoCompletion d = done;
        pool.recycle(this);
        d.ioComplete(st);
    }
}
