package io.numaiscsi.cache;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;

/**
 * A write-through write or an unmap: the backing device first, then the cached copies of the range are
 * invalidated, then it completes. Under write-back an unmap is an exclusive step of the write-back scheduler, so no
 * batch is writing the same blocks meanwhile.
 */
final class BackingRequest extends RoutedRequest implements IoCompletion {
    enum Kind {
        WRITE_THROUGH,
        UNMAP
    }

    private final RequestPool<BackingRequest> pool;
    private final BlockDevice backing;
    private final FillCoordinator fills;
    /** Null under write-through. */
    private final WriteBackScheduler writeBacks;

    Kind kind;
    boolean fua;

    BackingRequest(
            RequestPool<BackingRequest> pool,
            BlockDevice backing,
            FillCoordinator fills,
            WriteBackScheduler writeBacks) {
        this.pool = pool;
        this.backing = backing;
        this.fills = fills;
        this.writeBacks = writeBacks;
    }

    @Override
    void start() {
        if (kind == Kind.WRITE_THROUGH) {
            backing.write(offset, buf, fua, this);
        } else if (writeBacks != null) {
            writeBacks.enqueueUnmap(this);
        } else {
            runUnmap();
        }
    }

    /** Write-back unmaps run here only while no write-back batch is in flight. */
    void runUnmap() {
        backing.unmap(offset, length, this);
    }

    @Override
    public void ioComplete(IoStatus st) {
        boolean unmap = kind == Kind.UNMAP;
        fills.invalidate(offset, length, unmap);
        boolean exclusive = unmap && writeBacks != null;
        IoCompletion d = done;
        pool.recycle(this);
        d.ioComplete(st);
        if (exclusive) {
            writeBacks.exclusiveDone();
        }
    }
}
