package io.numaiscsi.cache;

import static io.numaiscsi.cache.ReadDecision.ADMITTED;
import static io.numaiscsi.cache.ReadDecision.BYPASS;
import static io.numaiscsi.cache.ReadDecision.COPIED;
import static io.numaiscsi.cache.ReadDecision.FILL;
import static io.numaiscsi.cache.ReadDecision.HIT;
import static io.numaiscsi.cache.ReadDecision.NEEDS_REQUEST;
import static io.numaiscsi.cache.ReadDecision.READ_THROUGH;
import static io.numaiscsi.cache.ReadDecision.WAIT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The per-piece read decision through one partition's methods: 4 slots of 16 KiB, 4 KiB granules. */
class ReadDecisionTest {
    private static final int G = 4096;
    private static final int BLOCK = 4 * G;

    private final CacheCounters counters = new CacheCounters(1);
    private final CachePartition p = partition();
    private final ReadAdmission admission = new ReadAdmission(GhostTable.forSlots(4), new StreamTable());
    private final int[] slots = new int[1];

    private CachePartition partition() {
        PoolShare share = new PoolShare(NodeBlockPool.over(0, ByteBuffer.allocateDirect(4 * BLOCK), BLOCK));
        CachePartition partition = new CachePartition(
                new PartitionSetup(0, share, 4, BLOCK, G, counters, null, new DirtyAccount(4L * BLOCK, 0.5, BLOCK)));
        share.join(new CachePartition[] {partition});
        return partition;
    }

    /** A request's decision for granules [g0, g1) of a random read of {@code block}. */
    private int read(long block, int g0, int g1, boolean admitted, FillWaiter w) {
        return p.read(
                admission, new ReadPiece().of(block, g0 * G, g1 * G, BLOCK).reading(false, admitted), w, slots, 0);
    }

    /** Completes the fill of slot s (its bytes are whatever the slot holds) and tells its waiters. */
    private void fillDone(int s) {
        int n = p.fillDone(s, true);
        for (int i = 0; i < n; i++) {
            p.io(s).waiter(i).blockReady(IoStatus.OK);
        }
    }

    private static final class Waiter implements FillWaiter {
        int ready;

        @Override
        public void blockReady(IoStatus st) {
            ready++;
        }
    }

    @Test
    void readThroughThenFillOnReuseThenWaitThenHit() {
        Waiter first = new Waiter();
        Waiter second = new Waiter();
        assertEquals(READ_THROUGH, read(7, 0, 1, false, first));
        assertEquals(-1, slots[0]);
        assertEquals(FILL, read(7, 0, 1, false, first), "read through just before: admitted");
        int s = slots[0];
        assertEquals(0, p.io(s).fillFrom, "an admitted small miss fills its own granules");
        assertEquals(1, p.io(s).fillTo);
        assertEquals(WAIT, read(7, 0, 1, false, second), "the fill in flight reads it");
        assertEquals(s, slots[0]);
        fillDone(s);
        assertEquals(1, first.ready);
        assertEquals(1, second.ready);
        p.unpin(s);
        p.unpin(s);
        assertEquals(HIT, read(7, 0, 1, false, first));
        p.unpin(s);
        assertEquals(0, p.pinnedSlots());
        CacheCounters.Snapshot c = counters.snapshot();
        assertEquals(1, c.hits()[0]);
        assertEquals(3, c.misses()[0], "the read-through, the fill and the wait");
        assertEquals(1, c.readThroughs()[0]);
    }

    @Test
    void oneBlockPathCopiesHitsAndHandsAdmittedMissesOnWithNothingTaken() {
        ByteBuf dst = Unpooled.buffer(G);
        assertEquals(READ_THROUGH, p.readHere(admission, 3, G, 2 * G, BLOCK, false, dst));
        assertEquals(ADMITTED, p.readHere(admission, 3, G, 2 * G, BLOCK, false, dst));
        assertEquals(0, p.pinnedSlots(), "nothing pinned or filled without a request");
        assertEquals(FILL, read(3, 1, 2, true, new Waiter()), "the request does not ask the admission again");
        int s = slots[0];
        byte[] bytes = new byte[G];
        Arrays.fill(bytes, (byte) 42);
        p.view(s).setBytes(G, bytes);
        fillDone(s);
        p.unpin(s);

        assertEquals(COPIED, p.readHere(admission, 3, G, 2 * G, BLOCK, false, dst));
        assertArrayEquals(bytes, ByteBufUtil.getBytes(dst));
        assertEquals(0, p.pinnedSlots());
        assertEquals(NEEDS_REQUEST, p.readHere(admission, 3, G, 2 * G, BLOCK, false, null), "not to be copied here");
        assertEquals(NEEDS_REQUEST, p.readHere(admission, 3, 2 * G, 3 * G, BLOCK, false, dst), "cached, not valid");
        CacheCounters.Snapshot c = counters.snapshot();
        assertEquals(1, c.hits()[0]);
        assertEquals(2, c.misses()[0], "the read-through and the fill");

        assertEquals(FILL, read(9, 0, 1, true, new Waiter()), "admitted: filled even never seen before");
    }

    @Test
    void subBlockFillOnlyWhenNoOneElseHoldsTheSlot() {
        assertEquals(FILL, read(5, 0, 1, true, new Waiter()));
        int s = slots[0];
        fillDone(s);
        p.unpin(s);
        assertEquals(FILL, read(5, 3, 4, false, new Waiter()), "cached, idle: a random read fills what is missing");
        assertEquals(s, slots[0]);
        assertEquals(1, p.io(s).fillFrom);
        assertEquals(4, p.io(s).fillTo);
        assertEquals(WAIT, read(5, 2, 3, false, new Waiter()));
        fillDone(s);
        p.unpin(s);
        p.unpin(s);

        p.invalidate(5, 3 * G, 4 * G, false, false); // a write-through write of the last granule
        assertEquals(HIT, read(5, 0, 1, false, new Waiter()));
        assertEquals(READ_THROUGH, read(5, 3, 4, false, new Waiter()), "held by another request: never refilled");
        p.unpin(s);
        ReadPiece sequential = new ReadPiece().of(5, 3 * G, 4 * G, BLOCK).reading(true, false);
        assertEquals(FILL, p.read(admission, sequential, new Waiter(), slots, 0));
        assertEquals(3, p.io(s).fillFrom, "a sequential read fills from its own granule to the end");
        assertEquals(4, p.io(s).fillTo);
    }

    @Test
    void bypassWhenEverySlotIsInUse() {
        for (long block = 0; block < 4; block++) {
            assertEquals(FILL, read(block, 0, 4, false, new Waiter()), "a random read of a whole block fills it");
        }
        assertEquals(BYPASS, read(4, 0, 4, false, new Waiter()));
        assertEquals(-1, slots[0]);
        assertEquals(1, counters.snapshot().bypasses()[0]);
    }
}
