package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.numa.NodeThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The write side of a cache's front end, for requests already admitted (open, in range): a write under the write
 * policy ({@link WriteBackWrite}, or a write-through {@link BackingRequest}), an unmap, a flush.
 */
final class CacheWrites {
    private final BlockDevice backing;
    /** Null under write-through. */
    private final WriteBackScheduler writeBacks;

    private final RequestDispatch dispatch;
    private final RequestPool<WriteBackWrite> writeBackWrites;
    private final RequestPool<BackingRequest> backingRequests;

    CacheWrites(
            BlockDevice backing,
            CacheSpace space,
            FillCoordinator fills,
            WriteBackScheduler writeBacks,
            RequestDispatch dispatch,
            AtomicInteger inflight) {
        this.backing = backing;
        this.writeBacks = writeBacks;
        this.dispatch = dispatch;
        this.writeBackWrites = new RequestPool<>(inflight, p -> new WriteBackWrite(p, space, fills, writeBacks));
        this.backingRequests = new RequestPool<>(inflight, p -> new BackingRequest(p, backing, fills, writeBacks));
    }

    void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
        int length = src.readableBytes();
        if (writeBacks != null) {
            WriteBackWrite r = writeBackWrites.take();
            r.offset = offset;
            r.length = length;
            r.buf = src;
            r.base = src.readerIndex();
            r.fua = fua;
            r.done = done;
            dispatch.dispatch(r);
        } else {
            BackingRequest r = backingRequests.take();
            r.kind = BackingRequest.Kind.WRITE_THROUGH;
            r.offset = offset;
            r.length = length;
            r.buf = src;
            r.fua = fua;
            r.done = done;
            dispatch.dispatch(r);
        }
    }

    void unmap(long offset, long length, IoCompletion done) {
        BackingRequest r = backingRequests.take();
        r.kind = BackingRequest.Kind.UNMAP;
        r.offset = offset;
        r.length = length;
        r.done = done;
        r.servingNode = Math.max(0, NodeThread.currentNode());
        r.start();
    }

    void flush(IoCompletion done) {
        if (writeBacks == null) {
            backing.flush(done);
        } else {
            writeBacks.flush(done);
        }
    }
}
