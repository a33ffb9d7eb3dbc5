package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Write-back: dirty tracking, write-back batches, flushes and their waiters. Batches and write-back unmaps are
 * exclusive steps, run one at a time, so two versions of one block are never in flight to the backing device at
 * once. A batch writes back every block dirty at its start (the block's version current when its turn comes: each run
 * of its granules newer than the device in turn), at most {@link #BATCH_IN_FLIGHT} blocks at a time so that reads of the
 * device do not queue behind all of it, then (if flushes wait on it) flushes the backing device and completes them. A
 * block is marked and pinned only while it is being written, so writes to the others still go into them in place.
 */
final class WriteBackScheduler {
    private final BlockDevice backing;
    private final CacheSpace space;
    private final FillCoordinator fills;

    private final Object serial = new Object();
    private boolean exclusiveRunning;
    private boolean batchWanted;
    private final ArrayDeque<IoCompletion> flushWaiters = new ArrayDeque<>();
    private final ArrayDeque<BackingRequest> unmapQueue = new ArrayDeque<>();
    private final ArrayDeque<IoCompletion> batchWaiters = new ArrayDeque<>();
    /** Blocks a batch writes back at once (a command queue's worth); the rest follow as they complete. */
    static final int BATCH_IN_FLIGHT = 32;

    /** The blocks dirty when the running batch started. */
    private final long[] batch;

    private final AtomicInteger batchPending = new AtomicInteger();
    /** The running batch: its size, the next of its blocks to write and how many are being written. */
    private volatile int batchSize;

    private final AtomicInteger batchNext = new AtomicInteger();
    private final AtomicInteger batchInFlight = new AtomicInteger();
    private final ThreadLocal<Driver> issueDriver = ThreadLocal.withInitial(Driver::new);
    private final Runnable issueStep = this::issueWhileRoom;
    private final Runnable exclusiveStep = this::runOneExclusive;
    private volatile IoStatus batchStatus = IoStatus.OK;
    /** Whether the running batch wrote anything back; an empty batch frees no slot, so it wakes nobody. */
    private volatile boolean batchCleaned;

    private final BatchFlush batchFlush = new BatchFlush();
    private final ThreadLocal<Driver> exclusiveDriver = ThreadLocal.withInitial(Driver::new);

    WriteBackScheduler(BlockDevice backing, CacheSpace space, FillCoordinator fills) {
        this.backing = backing;
        this.space = space;
        this.fills = fills;
        this.batch = new long[space.totalSlots()];
    }

    /** Completes {@code done} once every block dirty now is on the backing device and flushed there. */
    void flush(IoCompletion done) {
        boolean kick;
        synchronized (serial) {
            flushWaiters.add(done);
            kick = claimDriver();
        }
        if (kick) {
            runNextExclusive();
        }
    }

    /** Runs {@code unmap} (its {@link BackingRequest#runUnmap}) when no batch is in flight; it reports {@link #exclusiveDone}. */
    void enqueueUnmap(BackingRequest unmap) {
        boolean kick;
        synchronized (serial) {
            unmapQueue.add(unmap);
            kick = claimDriver();
        }
        if (kick) {
            runNextExclusive();
        }
    }

    /** Slot pressure: start a batch if none is running (or run one after the current step). */
    void requestWriteback() {
        boolean kick;
        synchronized (serial) {
            batchWanted = true;
            kick = claimDriver();
        }
        if (kick) {
            runNextExclusive();
        }
    }

    /** Lock held: true when no exclusive step is running, so the caller must start the next one. */
    private boolean claimDriver() {
        boolean idle = !exclusiveRunning;
        exclusiveRunning = true;
        return idle;
    }

    /** An unmap run by {@link #enqueueUnmap} finished. */
    void exclusiveDone() {
        runNextExclusive();
    }

    /** Whether the cache block holding {@code offset} is dirty here (not yet on the backing device). */
    boolean isDirty(long offset) {
        long block = offset / space.blockSize;
        return space.partitionOf(block).isDirty(block);
    }

    /**
     * Runs the next exclusive step (an unmap or a write-back batch). A step that completes inline (a synchronous
     * backing store) asks for the next one from inside itself: that request is left to the loop already running on
     * this thread, so a long run of steps does not nest one stack frame chain per step.
     */
    private void runNextExclusive() {
        exclusiveDriver.get().drive(exclusiveStep);
    }

    /** Whether this thread is inside a loop that must not nest, and whether it was asked to go round again. */
    private static final class Driver {
        private boolean driving;
        private boolean again;

        /** Runs {@code step}, and again as often as a call from inside it asked; such a call only asks. */
        void drive(Runnable step) {
            if (driving) {
                again = true;
                return;
            }
            driving = true;
            try {
                do {
                    again = false;
                    step.run();
                } while (again);
            } finally {
                driving = false;
            }
        }
    }

    private void runOneExclusive() {
        BackingRequest unmap;
        synchronized (serial) {
            unmap = unmapQueue.poll();
            if (unmap == null) {
                if (flushWaiters.isEmpty() && !batchWanted) {
                    exclusiveRunning = false;
                    return;
                }
                batchWaiters.addAll(flushWaiters);
                flushWaiters.clear();
                batchWanted = false;
            }
        }
        if (unmap != null) {
            unmap.runUnmap();
        } else {
            startBatch();
        }
    }

    private void startBatch() {
        int n = 0;
        for (CachePartition p : space.partitions) {
            n = p.dirtyBlocks(batch, n);
        }
        if (n > 0) {
            space.dirty.batchStarted();
        }
        batchStatus = IoStatus.OK;
        batchCleaned = n > 0;
        batchPending.set(n + 1);
        batchInFlight.set(0);
        batchNext.set(0);
        batchSize = n;
        issueMore();
        batchArrive();
    }

    /**
     * Starts writing the batch's next blocks while fewer than {@link #BATCH_IN_FLIGHT} are being written. A write that
     * completes inline (a synchronous store) and asks for more from inside this loop leaves it to the loop already
     * running on this thread, so a long batch does not nest one stack frame chain per block.
     */
    private void issueMore() {
        issueDriver.get().drive(issueStep);
    }

    private void issueWhileRoom() {
        while (batchInFlight.get() < BATCH_IN_FLIGHT) {
            int i = batchNext.getAndIncrement();
            if (i >= batchSize) {
                return;
            }
            long block = batch[i];
            SlotIo io = space.partitionOf(block).beginWriteback(block);
            if (io == null) {
                batchArrive(); // written back or unmapped since the batch began
                continue;
            }
            batchInFlight.incrementAndGet();
            io.writingBack = true;
            if (!writeRunFrom(io, 0)) {
                writebackDone(io, IoStatus.OK); // nothing valid to write: not expected of a dirty block
            }
        }
    }

    /**
     * Writes the first run of the slot's granules newer than the backing device from granule g on to it; false when
     * there is none left. The slot is pinned by the batch and being written back, so no write changes it meanwhile.
     */
    private boolean writeRunFrom(SlotIo io, int g) {
        CachePartition p = io.partition;
        long block = p.blockOf(io.slot);
        long run = p.newerRun(io.slot, g, space.granules(block));
        if (run < 0) {
            io.runBytes = 0;
            return false;
        }
        int from = (int) (run >>> 32) * space.granule;
        int to = Math.min((int) run * space.granule, space.blockBytes(block));
        io.runTo = (int) run;
        io.runBytes = to - from;
        ByteBuf view = p.view(io.slot);
        view.setIndex(from, to);
        backing.write(block * space.blockSize + from, view, false, io);
        return true;
    }

    void writebackDone(SlotIo io, IoStatus st) {
        boolean ok = st == IoStatus.OK;
        if (ok) {
            space.dirty.wroteBack(io.runBytes);
            if (writeRunFrom(io, io.runTo)) {
                return; // the block's next run
            }
        }
        io.partition.writebackDone(io.slot, ok);
        if (!ok && batchStatus == IoStatus.OK) {
            batchStatus = st;
        }
        batchInFlight.decrementAndGet();
        issueMore(); // before this block's arrival: the batch cannot end (and the next begin) while this runs
        batchArrive();
    }

    private void batchArrive() {
        if (batchPending.decrementAndGet() != 0) {
            return;
        }
        boolean waiters;
        synchronized (serial) {
            waiters = !batchWaiters.isEmpty();
        }
        if (waiters) {
            backing.flush(batchFlush);
        } else {
            batchFinished();
        }
    }

    private void batchFinished() {
        if (batchCleaned) {
            // slots freed by the write-backs already woke their partitions; this catches parks that raced the batch
            fills.wakeAllParked();
        }
        runNextExclusive();
    }

    /** Completes the flush requests of a batch once the backing device has made it durable. */
    private final class BatchFlush implements IoCompletion {
        @Override
        public void ioComplete(IoStatus st) {
            IoStatus result = batchStatus != IoStatus.OK ? batchStatus : st;
            IoCompletion[] done;
            synchronized (serial) {
                done = batchWaiters.toArray(new IoCompletion[0]);
                batchWaiters.clear();
            }
            for (IoCompletion d : done) {
                d.ioComplete(result);
            }
            batchFinished();
        }
    }

    /** The serializer's state, for diagnosing a stuck request. */
    void describe(StringBuilder sb) {
        synchronized (serial) {
            sb.append("exclusiveRunning=")
                    .append(exclusiveRunning)
                    .append(" batchWanted=")
                    .append(batchWanted)
                    .append(" flushWaiters=")
                    .append(flushWaiters.size())
                    .append(" batchWaiters=")
                    .append(batchWaiters.size())
                    .append(" batchPending=")
                    .append(batchPending.get());
        }
    }
}
