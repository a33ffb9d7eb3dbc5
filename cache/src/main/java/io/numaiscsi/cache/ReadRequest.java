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
 * A read through the cache: each block it touches is a piece, and its partition decides what each piece is
 * ({@link CachePartition#read}): a hit (pinned), a fill (the whole block or some granules) or a wait on the fill in
 * flight, a read-through or a bypass, or a merge (a read-through with a block written in part laid over it);
 * read-throughs, bypasses and merges go straight from the backing device into the caller's buffer, adjacent ones as
 * one read. When all have arrived, the cached bytes are copied once into the caller's buffer (a merge: its valid
 * granules), or, for a shared read, handed over in place as {@link PinnedBlocks}.
 * Its own Runnable (forwarded, or handed back for the copy) and its own IoCompletion (bypass reads).
 */
final class ReadRequest extends RoutedRequest implements IoCompletion, FillWaiter {
    /** What run() does: start, or copy out on the serving node after the last block arrived on another node. */
    private enum Stage {
        START,
        COPY
    }

    private final RequestPool<ReadRequest> pool;
    private final BlockDevice backing;
    private final CacheSpace space;
    private final FillCoordinator fills;
    private final CacheCounters counters;
    private final NodeExecutors executors;
    private final int blockSize;
    private final ReadAdmission admission;
    int base;
    /** Whether the read continues a sequential stream (the device asked its {@link ReadAdmission} once, on arrival). */
    boolean sequential;
    /** The device's one-block path already had the admission let this read's miss in ({@link ReadDecision#ADMITTED}). */
    boolean admitted;
    /** A shared read (served in place) reports here instead of {@link #done}; buf is null until a bypass needs one. */
    SharedRead shared;

    ByteBufAllocator alloc;
    private Stage stage;
    private long firstBlock;
    private int blocks;
    private int[] slots = new int[4];
    private final ReadPiece piece = new ReadPiece();
    /** Which pieces are merges ({@link ReadDecision#MERGE}): only the slot's valid granules are copied out. */
    private boolean[] merged = new boolean[4];

    private final AtomicInteger pending = new AtomicInteger();
    private volatile IoStatus status;
    /** The pending run of pieces read straight from the backing device, [runStart, runEnd), or -1. */
    private long runStart;

    private long runEnd;
    /** More than one such run: each reads into its own slice. */
    private boolean splitRuns;

    ReadRequest(
            RequestPool<ReadRequest> pool,
            BlockDevice backing,
            CacheSpace space,
            FillCoordinator fills,
            CacheCounters counters,
            NodeExecutors executors,
            ReadAdmission admission) {
        this.pool = pool;
        this.backing = backing;
        this.space = space;
        this.fills = fills;
        this.counters = counters;
        this.executors = executors;
        this.blockSize = space.blockSize;
        this.admission = admission;
    }

    @Override
    public void reset() {
        super.reset();
        shared = null;
        alloc = null;
        status = IoStatus.OK;
        stage = Stage.START;
        admitted = false;
    }

    @Override
    public void run() {
        if (stage == Stage.COPY) {
            copyOut();
        } else {
            start();
        }
    }

    @Override
    void start() {
        firstBlock = offset / blockSize;
        blocks = length == 0 ? 0 : (int) ((offset + length - 1) / blockSize - firstBlock + 1);
        if (buf != null) {
            buf.ensureWritable((int) length);
        }
        if (slots.length < blocks) {
            slots = new int[Math.max(blocks, slots.length * 2)];
            merged = new boolean[slots.length];
        }
        runStart = -1;
        runEnd = -1;
        splitRuns = false;
        // this start, and every piece until it is known not to wait on a fill
        pending.set(1 + blocks);
        int notWaiting = 0;
        for (int i = 0; i < blocks; i++) {
            long block = firstBlock + i;
            CachePartition p = space.partitionOf(block);
            long blockStart = block * blockSize;
            int from = (int) (Math.max(offset, blockStart) - blockStart);
            int to = (int) (Math.min(offset + length, blockStart + blockSize) - blockStart);
            piece.of(block, from, to, space.blockBytes(block)).reading(sequential, admitted && i == 0);
            int outcome = p.read(admission, piece, this, slots, i);
            merged[i] = outcome == ReadDecision.MERGE;
            if (outcome == ReadDecision.FILL) {
                fills.issueFill(p, slots[i], block);
            } else if (outcome != ReadDecision.WAIT) {
                notWaiting++;
                if (outcome != ReadDecision.HIT) {
                    direct(blockStart + from, blockStart + to);
                }
            }
        }
        if (runStart >= 0) {
            issueRun();
        }
        arrive(1 + notWaiting);
    }

    /**
     * The device bytes [start, end) go straight from the backing device to the caller's buffer (read-through or
     * bypass). Adjacent pieces join one backing read; a read with one such run (the common case) reads into the
     * caller's buffer itself, without a slice.
     */
    private void direct(long start, long end) {
        if (start == runEnd) {
            runEnd = end;
            return;
        }
        if (runStart >= 0) {
            splitRuns = true;
            issueRun();
        }
        runStart = start;
        runEnd = end;
    }

    private void issueRun() {
        if (buf == null) {
            buf = alloc.directBuffer((int) length, (int) length); // a shared read falls back to one copy
            base = 0;
        }
        int at = base + (int) (runStart - offset);
        int n = (int) (runEnd - runStart);
        pending.incrementAndGet();
        if (splitRuns) {
            backing.read(runStart, n, buf.slice(at, n).clear(), this); // rare: cached pieces between direct ones
        } else {
            buf.writerIndex(at); // the backing device writes at the writer index; copyOut sets the final one
            backing.read(runStart, n, buf, this);
        }
        runStart = -1;
        runEnd = -1;
    }

    /** A read straight from the backing device finished. */
    @Override
    public void ioComplete(IoStatus st) {
        record(st);
        arrive(1);
    }

    @Override
    public void blockReady(IoStatus st) {
        record(st);
        arrive(1);
    }

    private void record(IoStatus st) {
        if (st != IoStatus.OK && status == IoStatus.OK) {
            status = st;
        }
    }

    /** {@code n} of what the request waits for arrived. */
    private void arrive(int n) {
        if (pending.addAndGet(-n) != 0) {
            return;
        }
        if (shared != null && buf == null) {
            serveInPlace();
            return;
        }
        int here = NodeThread.currentNode();
        if (here != servingNode && routed) {
            stage = Stage.COPY; // before the hand-off: the worker may run this request at once
            if (executors.execute(servingNode, this)) {
                return;
            }
        }
        copyOut();
    }

    private void copyOut() {
        boolean ok = status == IoStatus.OK;
        for (int i = 0; i < blocks; i++) {
            int s = slots[i];
            if (s < 0) {
                continue;
            }
            long block = firstBlock + i;
            CachePartition p = space.partitionOf(block);
            if (ok) {
                long start = Math.max(offset, block * blockSize);
                long end = Math.min(offset + length, (block + 1) * blockSize);
                int n = (int) (end - start);
                int at = base + (int) (start - offset);
                int from = (int) (start - block * blockSize);
                if (merged[i]) {
                    n = p.copyValidBytes(s, from, from + n, buf, at); // over what the backing device read
                } else {
                    buf.setBytes(at, p.view(s), from, n);
                }
                space.touches.touched(DataTouches.Kind.COPY, p.node(), n);
                space.touches.touched(DataTouches.Kind.COPY, buf, at, n);
            }
            p.unpin(s);
        }
        if (ok) {
            buf.writerIndex(base + (int) length);
        }
        finish(status);
    }

    /** Every block is pinned and valid (or the read failed): hand over the blocks themselves, pins included. */
    private void serveInPlace() {
        if (status != IoStatus.OK) {
            for (int i = 0; i < blocks; i++) {
                space.partitionOf(firstBlock + i).unpin(slots[i]);
            }
            finish(status);
            return;
        }
        PinnedBlocks view = new PinnedBlocks(alloc, blocks);
        for (int i = 0; i < blocks; i++) {
            long block = firstBlock + i;
            CachePartition p = space.partitionOf(block);
            long start = Math.max(offset, block * blockSize);
            long end = Math.min(offset + length, (block + 1) * blockSize);
            int n = (int) (end - start);
            view.add(p, slots[i], (int) (start - block * blockSize), n);
            counters.inPlace(p.node(), n);
        }
        buf = view;
        finish(IoStatus.OK);
    }

    private void finish(IoStatus st) {
        IoCompletion d = done;
        SharedRead sr = shared;
        ByteBuf out = buf;
        pool.recycle(this);
        if (sr == null) {
            d.ioComplete(st);
            return;
        }
        if (st != IoStatus.OK && out != null) {
            out.release();
            out = null;
        }
        sr.sharedReadDone(st, out);
    }
}
