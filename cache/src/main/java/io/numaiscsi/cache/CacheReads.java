package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.SharedRead;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The read side of a cache's front end, for reads already admitted (open, in range): the one-block path, cache
 * requests ({@link ReadRequest}), shared reads, and PRE-FETCH's hint to the admission.
 */
final class CacheReads {
    /** The largest hit copied under the partition lock: the lock never covers a bulk copy. */
    private static final int HIT_COPY_MAX = 64 * 1024;

    private final BlockDevice backing;
    private final CacheSpace space;
    private final int blockSize;
    private final RequestDispatch dispatch;
    private final ReadAdmission admission;
    private final RequestPool<ReadRequest> reads;

    CacheReads(
            BlockDevice backing,
            CacheSpace space,
            FillCoordinator fills,
            CacheCounters counters,
            NodeExecutors executors,
            RequestDispatch dispatch,
            AtomicInteger inflight) {
        this.backing = backing;
        this.space = space;
        this.blockSize = space.blockSize;
        this.dispatch = dispatch;
        ReadAdmission admission = new ReadAdmission(GhostTable.forSlots(space.totalSlots()), new StreamTable());
        this.admission = admission;
        this.reads = new RequestPool<>(
                inflight, p -> new ReadRequest(p, backing, space, fills, counters, executors, admission));
    }

    void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        boolean sequential = admission.sequential(offset, offset + length);
        int outcome = readHere(offset, length, sequential, dst);
        if (outcome == ReadDecision.COPIED) {
            done.ioComplete(IoStatus.OK);
            return;
        }
        if (outcome == ReadDecision.READ_THROUGH) {
            // Nothing of the cache's is involved: the backing device reads into the caller's buffer and completes to
            // the caller. (Not counted in flight: one still running at close fails as any read of a closed device
            // does.)
            backing.read(offset, length, dst, done);
            return;
        }
        ReadRequest r = request(offset, length, sequential);
        r.admitted = outcome == ReadDecision.ADMITTED;
        r.buf = dst;
        r.base = dst.writerIndex();
        r.done = done;
        dispatch.dispatch(r);
    }

    /** Served in place: nothing to copy, so never forwarded to another node. */
    void readShared(long offset, int length, ByteBufAllocator alloc, SharedRead done) {
        ReadRequest r = request(offset, length, admission.sequential(offset, offset + length));
        r.shared = done;
        r.alloc = alloc;
        r.servingNode = Math.max(0, NodeThread.currentNode());
        r.start();
    }

    /**
     * PRE-FETCH: every granule of {@code block} counts as read through just now, so the read that follows fills it
     * (the reuse rule admits it; no first-time or scan rule reads it through). No partition lock: the admission's
     * tables are racy on purpose, and the read that follows runs on this thread.
     */
    void wantedSoon(long block) {
        admission.wanted(block, 0, space.granules(block));
    }

    /**
     * A read within one block, decided by its partition before any cache request exists ({@link
     * CachePartition#readHere}): a hit of at most 64 KiB that the router would not forward is copied into {@code dst}
     * under the partition lock (no request, no pin, no second lock to unpin); a miss the admission gives no slot is read
     * through by the caller (most reads of a LUN larger than the cache: one lookup more than no cache). Anything else,
     * and a read over several blocks, needs a cache request.
     */
    private int readHere(long offset, int length, boolean sequential, ByteBuf dst) {
        long block = offset / blockSize;
        if (length == 0 || (offset + length - 1) / blockSize != block) {
            return ReadDecision.NEEDS_REQUEST;
        }
        boolean copyHere = length <= HIT_COPY_MAX && !dispatch.mayForward(length);
        int from = (int) (offset - block * blockSize);
        int at = dst.writerIndex();
        CachePartition p = space.partitionOf(block);
        int outcome = p.readHere(
                admission, block, from, from + length, space.blockBytes(block), sequential, copyHere ? dst : null);
        if (outcome == ReadDecision.COPIED) {
            space.touches.touched(DataTouches.Kind.COPY, p.node(), length);
            space.touches.touched(DataTouches.Kind.COPY, dst, at, length);
        }
        return outcome;
    }

    private ReadRequest request(long offset, int length, boolean sequential) {
        ReadRequest r = reads.take();
        r.offset = offset;
        r.length = length;
        r.sequential = sequential;
        return r;
    }
}
