package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.numa.NodeMemory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's cache memory ({@code cache.size-per-node}), shared by every cache homed on the node: its blocks go to
 * whichever LUN misses first, and a LUN holding less than its minimum share when the pool runs dry gets blocks back
 * from the LUN holding the most above its own, so one busy LUN cannot keep the others out. The minimum share is half
 * the pool divided evenly among its members; the other half goes to whoever uses it.
 *
 * <p>A write-back write cannot bypass the cache as a read miss does: when its partition has no memory and the pool
 * gives it none, it parks, and nothing in its own partition may ever come free. Such a partition waits on the pool
 * ({@link #awaitBlock}): the reclaim gives back one more block per waiting partition from the member holding the most
 * above its minimum share (its own LUN's other partitions included) and wakes the waiting partitions once they can
 * take a block; while none can (every block dirty or pinned), it tries again every {@link #RETRY_MILLIS} ms, as the
 * write-backs clean blocks.
 *
 * <p>The pool's lock is a leaf: it is taken inside a partition's lock (take, give, awaitBlock), never the other way
 * round, and the blocks given back are evicted and the waiting partitions woken on the reclaim thread, one partition
 * lock at a time.
 */
public final class NodeBlockPool {
    private static final Logger LOG = LoggerFactory.getLogger(NodeBlockPool.class);

    private final int node;
    private final int blockSize;
    private final ByteBuffer[] chunks;
    private final ByteBuf[] views;
    private final int[] free;
    private int freeCount;
    private final List<PoolShare> members = new ArrayList<>();
    /** Partitions with writes parked for memory. */
    private final List<Waiting> waiting = new ArrayList<>();

    private boolean reclaimQueued;

    static final int RETRY_MILLIS = 10;

    /** A partition with writes parked for memory, and the share it takes blocks for. */
    private record Waiting(PoolShare member, CachePartition partition) {}

    private NodeBlockPool(int node, int blockSize, ByteBuffer[] chunks) {
        this.node = node;
        this.blockSize = blockSize;
        this.chunks = chunks;
        int perChunk = chunks.length == 0 ? 0 : chunks[0].capacity() / blockSize;
        int blocks = 0;
        for (ByteBuffer c : chunks) {
            blocks += c.capacity() / blockSize;
        }
        views = new ByteBuf[blocks];
        free = new int[blocks];
        for (int b = 0; b < blocks; b++) {
            ByteBuffer chunk = chunks[b / perChunk];
            int at = b % perChunk * blockSize;
            views[b] = Unpooled.wrappedBuffer(
                            chunk.duplicate().position(at).limit(at + blockSize).slice())
                    .clear();
            free[b] = blocks - 1 - b; // block 0 handed out first
        }
        freeCount = blocks;
    }

    /**
     * {@code bytes} (rounded down to whole blocks) of node {@code node}'s memory, allocated now through {@code memory}
     * in chunks of at most 1 GiB.
     */
    public static NodeBlockPool allocate(int node, long bytes, int blockSize, NodeMemory memory) {
        long blocks = bytes / blockSize;
        int perChunk = (int) Math.max(1, Math.min(blocks, (1L << 30) / blockSize));
        int chunkCount = (int) ((blocks + perChunk - 1) / perChunk);
        ByteBuffer[] chunks = new ByteBuffer[chunkCount];
        for (int i = 0; i < chunkCount; i++) {
            long inChunk = Math.min(perChunk, blocks - (long) i * perChunk); // the last chunk may be short
            chunks[i] = memory.allocate(node, (int) inChunk * blockSize);
        }
        return new NodeBlockPool(node, blockSize, chunks);
    }

    /** A pool over {@code memory} (whole blocks of it), for a cache of its own. */
    /** Refuses pools whose blocks are not of {@code blockSize} bytes, the cache's. */
    static void requireBlockSize(NodeBlockPool[] pools, int blockSize) {
        for (NodeBlockPool pool : pools) {
            if (pool.blockSize() != blockSize) {
                throw new IllegalArgumentException(
                        "pool blocks of " + pool.blockSize() + " for a cache of " + blockSize);
            }
        }
    }

    /** Frees the memory of every pool in {@code pools}, allocated through {@code memory}. */
    static void freeAll(NodeBlockPool[] pools, NodeMemory memory) {
        for (NodeBlockPool pool : pools) {
            pool.free(memory);
        }
    }

    static NodeBlockPool over(int node, ByteBuffer memory, int blockSize) {
        return new NodeBlockPool(node, blockSize, new ByteBuffer[] {memory});
    }

    public int blockSize() {
        return blockSize;
    }

    /** Blocks in the pool, held or free. */
    public int blocks() {
        return views.length;
    }

    public long bytes() {
        return (long) views.length * blockSize;
    }

    public synchronized long freeBytes() {
        return (long) freeCount * blockSize;
    }

    /** The memory, e.g. for a transport to register with its device once. */
    public List<ByteBuffer> memory() {
        return List.of(chunks);
    }

    /** Frees the memory; every member must have left. */
    public void free(NodeMemory memory) {
        synchronized (this) {
            if (!members.isEmpty() || freeCount != views.length) {
                throw new IllegalStateException("node " + node + " pool still has " + members.size() + " member(s), "
                        + (views.length - freeCount) + " block(s) held");
            }
        }
        for (ByteBuffer c : chunks) {
            memory.free(c);
        }
    }

    ByteBuf view(int block) {
        return views[block];
    }

    synchronized void join(PoolShare member) {
        members.add(member);
    }

    /** The member has given every block back. */
    synchronized void leave(PoolShare member) {
        members.remove(member);
    }

    /** Blocks each member is sure to get back on a claim: half the pool split among the members. */
    synchronized int minimumShare() {
        return members.isEmpty() ? views.length : views.length / (2 * members.size());
    }

    /**
     * A free block for {@code member}, or -1 when the pool has none for it: dry (a member under its minimum share then
     * claims, and the reclaim refills the pool), or what is free is owed to members that claimed.
     */
    synchronized int take(PoolShare member) {
        int min = minimumShare();
        boolean under = member.held < min;
        if (freeCount == 0 || (!under && freeCount <= owedToClaimants(min))) {
            if (under) {
                claim(member);
            }
            return -1;
        }
        member.held++;
        if (member.held >= min) {
            member.claimed = false;
        }
        return free[--freeCount];
    }

    private void claim(PoolShare member) {
        member.claimed = true;
        queueReclaim(0);
    }

    private void queueReclaim(int delayMillis) {
        if (!reclaimQueued) {
            reclaimQueued = true;
            Reclaimer.EXECUTOR.schedule(this::reclaim, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Partition {@code p} of {@code member} parked a write-back write without memory of its own after the pool gave it
     * none: it is woken ({@link CachePartition#wakeParked}) when the pool has a block it may take.
     */
    synchronized void awaitBlock(PoolShare member, CachePartition p) {
        if (waiting.stream().noneMatch(w -> w.partition() == p)) {
            waiting.add(new Waiting(member, p));
        }
        queueReclaim(0);
    }

    /** Blocks still owed to members that claimed their minimum share. */
    private int owedToClaimants(int min) {
        int owed = 0;
        for (PoolShare m : members) {
            if (m.claimed && m.held < min) {
                owed += min - m.held;
            }
        }
        return owed;
    }

    synchronized void give(PoolShare member, int block) {
        member.held--;
        free[freeCount++] = block;
        if (!waiting.isEmpty()) {
            queueReclaim(0); // wakes them on the reclaim thread: this thread holds a partition's lock
        }
    }

    /**
     * The member holding the most above the minimum share gives back what the claimants are owed and a block for each
     * partition waiting (as far as it has clean, unpinned blocks to give, and never below its own minimum); the blocks
     * wait in the pool for the claimants' next misses and the waiting partitions, which are woken. A claimant still
     * short claims again on its next miss.
     */
    private void reclaim() {
        int wanted;
        PoolShare giver;
        synchronized (this) {
            reclaimQueued = false;
            int min = minimumShare();
            giver = null;
            for (PoolShare m : members) {
                if (m.held > min && (giver == null || m.held > giver.held)) {
                    giver = m;
                }
            }
            wanted = giver == null ? 0 : Math.min(owedToClaimants(min) + waiting.size() - freeCount, giver.held - min);
        }
        if (wanted > 0) {
            int given = giver.giveBack(wanted);
            LOG.debug(
                    "node {} pool: {} of {} block(s) given back for members under their minimum share and partitions "
                            + "waiting for memory",
                    node,
                    given,
                    wanted);
        }
        wakeWaiting();
    }

    /** Wakes the waiting partitions if one of them may take a free block now; else tries again a little later. */
    private void wakeWaiting() {
        List<Waiting> wake;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
            int min = minimumShare();
            boolean takeable = freeCount > owedToClaimants(min)
                    || (freeCount > 0 && waiting.stream().anyMatch(w -> w.member().held < min));
            if (!takeable) {
                queueReclaim(RETRY_MILLIS);
                return;
            }
            wake = List.copyOf(waiting);
            waiting.clear();
        }
        for (Waiting w : wake) {
            w.partition().wakeParked();
        }
    }

    /** Reclaims run on one daemon thread for every pool: rare, and never under a partition's lock. */
    private static final class Reclaimer {
        static final ScheduledExecutorService EXECUTOR = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cache-reclaim");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public synchronized String toString() {
        return "node " + node + " pool: " + views.length + " blocks of " + blockSize + ", " + freeCount + " free, "
                + members.size() + " member(s)";
    }
}
