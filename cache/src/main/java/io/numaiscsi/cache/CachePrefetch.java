package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.SharedRead;

/**
 * One PRE-FETCH through a cache: the range is read one cache block at a time, each block first marked as wanted soon
 * (so the read fills it, where the admission would read a first-time or sequential miss through), then released at
 * once: it stays cached, unpinned, like any block read before. One read at a time; a read that completes inside its
 * own call continues the loop instead of recursing.
 */
final class CachePrefetch implements SharedRead {
    private final CachedBlockDevice cache;
    private final int cacheBlock;
    private final long end;
    private final IoCompletion done;
    private long at;
    private IoStatus failed;
    private boolean issuing;
    private boolean completedWhileIssuing;

    CachePrefetch(CachedBlockDevice cache, int cacheBlock, long offset, long end, IoCompletion done) {
        this.cache = cache;
        this.cacheBlock = cacheBlock;
        this.at = offset;
        this.end = end;
        this.done = done;
    }

    void run() {
        while (true) {
            IoStatus failure;
            synchronized (this) {
                failure = failed;
            }
            if (failure != null || at >= end) {
                done.ioComplete(failure != null ? failure : IoStatus.OK);
                return;
            }
            long block = at / cacheBlock;
            long from = at;
            at = Math.min(end, (block + 1) * cacheBlock);
            cache.wantedSoon(block);
            synchronized (this) {
                issuing = true;
                completedWhileIssuing = false;
            }
            cache.readShared(from, (int) (at - from), ByteBufAllocator.DEFAULT, this);
            synchronized (this) {
                issuing = false;
                if (!completedWhileIssuing) {
                    return; // sharedReadDone goes on when the block is in
                }
            }
        }
    }

    @Override
    public void sharedReadDone(IoStatus status, ByteBuf data) {
        if (data != null) {
            data.release();
        }
        synchronized (this) {
            if (status != IoStatus.OK) {
                failed = status;
            }
            if (issuing) {
                completedWhileIssuing = true;
                return;
            }
        }
        run();
    }
}
