package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.numa.DataTouches;

/**
 * A write under write-back: one block at a time, each written block becomes a fresh dirty copy (copy-on-write, so
 * readers never see a half-updated block). A partial block is read-modify-write: its base is filled first when not
 * cached or cached only in part (a clean partial copy is dropped and the whole block read), and the new copy is
 * installed only if the base is still current (else the block is retried). Without a free slot, or when one more
 * dirty block would pass the device's hard dirty limit, the write parks on the partition and asks for a write-back
 * batch; it resumes when a slot comes free.
 * A FUA write then flushes everything before it completes.
 */
final class WriteBackWrite extends RoutedRequest implements IoCompletion, FillWaiter {
    private final RequestPool<WriteBackWrite> pool;
    private final CacheSpace space;
    private final FillCoordinator fills;
    private final WriteBackScheduler writeBacks;
    private final int blockSize;
    int base;
    boolean fua;
    private long firstBlock;
    private int blocks;
    /** The block being written, its base slot and the base's version at pin time. */
    private int cursor;

    private int baseSlot;
    private int baseVersion;
    /** Next in its partition's parked list or in a resume queue. */
    WriteBackWrite nextParked;

    WriteBackWrite(
            RequestPool<WriteBackWrite> pool, CacheSpace space, FillCoordinator fills, WriteBackScheduler writeBacks) {
        this.pool = pool;
        this.space = space;
        this.fills = fills;
        this.writeBacks = writeBacks;
        this.blockSize = space.blockSize;
    }

    @Override
    public void reset() {
        super.reset();
        nextParked = null;
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
            long blockStart = block * blockSize;
            long start = Math.max(offset, blockStart);
            long end = Math.min(offset + length, blockStart + blockSize);
            int n = (int) (end - start);
            int inBlock = (int) (start - blockStart);
            int done;
            if (inBlock == 0 && n == space.blockBytes(block)) {
                int s = p.reserveForWrite(this);
                if (s >= 0) {
                    int from = base + (int) (start - offset);
                    p.view(s).setBytes(0, buf, from, n);
                    space.touches.touched(DataTouches.Kind.COPY, buf, from, n);
                    space.touches.touched(DataTouches.Kind.COPY, p.node(), n);
                    p.installWritten(s, block);
                    cursor++;
                    continue;
                }
                done = s;
            } else {
                done = p.pinBase(block, space.granules(block), this);
                if (done == CachePartition.BASE_FILLING) {
                    return; // blockReady goes on
                }
                if (done == CachePartition.BASE_FILL) {
                    fills.issueFill(p, baseSlot, block);
                    return;
                }
                if (done == CachePartition.BASE_READY) {
                    if (!apply(p, block, start, n, inBlock)) {
                        return;
                    }
                    continue;
                }
            }
            parkedOn = p;
            overDirtyLimit = done == CachePartition.PARKED_FOR_ROOM;
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

    /** The partition pinned slot {@code s}, at {@code version}, as the base of the block being written. */
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

    /** The base of a partial block is filled (or failed). */
    @Override
    public void blockReady(IoStatus st) {
        CachePartition p = space.partitionOf(firstBlock + cursor);
        if (st != IoStatus.OK) {
            p.unpin(baseSlot);
            finish(st);
            return;
        }
        long block = firstBlock + cursor;
        long blockStart = block * blockSize;
        long start = Math.max(offset, blockStart);
        long end = Math.min(offset + length, blockStart + blockSize);
        if (apply(p, block, start, (int) (end - start), (int) (start - blockStart))) {
            step();
        }
    }

    /**
     * Base slot pinned and valid: copy it plus the new bytes into a fresh slot and install that if the
     * base is still current. false when parked (no slot); on a lost race the same block is retried.
     */
    private boolean apply(CachePartition p, long block, long start, int n, int inBlock) {
        int s = p.reserveCopy(baseSlot, this);
        if (s < 0) {
            // parked: another thread may already have resumed this request
            wakeIfDirtyRoomCameMeanwhile(p, s == CachePartition.PARKED_FOR_ROOM);
            writeBacks.requestWriteback();
            return false;
        }
        int bytes = space.blockBytes(block);
        int from = base + (int) (start - offset);
        ByteBuf copy = p.view(s);
        copy.setBytes(0, p.view(baseSlot), 0, bytes);
        copy.setBytes(inBlock, buf, from, n);
        space.touches.touched(DataTouches.Kind.COPY, p.node(), 2L * bytes + n); // base to copy, then the new bytes in
        space.touches.touched(DataTouches.Kind.COPY, buf, from, n);
        if (p.installCopy(s, block, baseSlot, baseVersion)) {
            cursor++;
        }
        return true;
    }

    /** The FUA flush finished. */
    @Override
    public void ioComplete(IoStatus st) {
        finish(st);
    }

    private void finish(IoStatus st) {
        IoCompletion d = done;
        pool.recycle(this);
        d.ioComplete(st);
    }
}
