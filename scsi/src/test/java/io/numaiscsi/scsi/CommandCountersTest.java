package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.management.ThreadMXBean;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class CommandCountersTest {
    private final Harness h = new Harness();
    private final CommandCounters c = new CommandCounters();

    /** Runs a command as the transport does: started, executed, completed with the given latency. */
    private ScsiTask count(byte[] cdb, byte[] dataOut, long latencyNanos) {
        c.started();
        ScsiTask t = h.run(A, 0, cdb, dataOut);
        c.completed(t, latencyNanos);
        return t;
    }

    @Test
    void readsWritesAndOthersAreCountedWithTheirBytes() {
        count(write10(0, 8), pattern(8 * 512, 1), 40_000).recycle();
        count(read10(0, 4), null, 120_000).recycle();
        count(read10(4, 2), null, 2_000_000_000L).recycle();
        count(Harness.cdb("000000000000"), null, 10_000).recycle(); // TEST UNIT READY
        assertEquals(2, c.commands(CommandCounters.Op.READ));
        assertEquals(1, c.commands(CommandCounters.Op.WRITE));
        assertEquals(1, c.commands(CommandCounters.Op.OTHER));
        assertEquals(6 * 512, c.bytes(CommandCounters.Op.READ));
        assertEquals(8 * 512, c.bytes(CommandCounters.Op.WRITE));
        assertEquals(0, c.executing());
        assertEquals(2_000_120_000L, c.latencySumNanos(CommandCounters.Op.READ));
    }

    @Test
    void atomicOrAndCompareWritesAreWritesOfTheBlocksTheyWrite() {
        count(Harness.cdb("9c 00 0000000000000000 0000 0002 00 00"), pattern(2 * 512, 1), 10_000)
                .recycle(); // ATOMIC
        count(Harness.cdb("8b 00 0000000000000000 00000002 00 00"), pattern(2 * 512, 2), 10_000)
                .recycle(); // ORWRITE
        byte[] both = new byte[2 * 512]; // compare with what is there, then write the second half
        System.arraycopy(h.good(A, 0, read10(0, 1), null), 0, both, 0, 512);
        count(Harness.cdb("89 00 0000000000000000 000000 01 00 00"), both, 10_000)
                .recycle(); // COMPARE AND WRITE
        assertEquals(3, c.commands(CommandCounters.Op.WRITE));
        assertEquals((2 + 2 + 1) * 512, c.bytes(CommandCounters.Op.WRITE));
        assertEquals(0, c.commands(CommandCounters.Op.OTHER));
    }

    @Test
    void latencyFallsInTheFirstBucketWhoseBoundItDoesNotExceed() {
        double[] bounds = CommandCounters.latencyBoundsSeconds();
        assertEquals(50e-6, bounds[0], 1e-12);
        assertEquals(1.0, bounds[bounds.length - 1], 1e-12);
        count(read10(0, 1), null, 50_000).recycle(); // on the first bound: first bucket
        count(read10(0, 1), null, 50_001).recycle(); // just above: second
        count(read10(0, 1), null, 5_000_000_000L).recycle(); // beyond 1 s: the last, unbounded one
        long[] expected = new long[bounds.length + 1];
        expected[0] = 1;
        expected[1] = 1;
        expected[bounds.length] = 1;
        assertArrayEquals(expected, c.latencyBuckets(CommandCounters.Op.READ));
    }

    @Test
    void countingAllocatesNothing() {
        ScsiTask t = h.run(A, 0, read10(0, 1), null);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        for (int i = 0; i < 20_000; i++) { // warm up: the JIT may allocate while it compiles
            c.started();
            c.completed(t, i * 1000L);
        }
        long before = mx.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++) {
            c.started();
            c.completed(t, i * 1000L);
        }
        long allocated = mx.getThreadAllocatedBytes(id) - before;
        t.recycle();
        assertEquals(true, allocated < 1024, allocated + " bytes allocated by 100000 commands counted");
    }

    @Test
    void aCommandStartedAndNotCompletedIsExecuting() {
        c.started();
        c.started();
        assertEquals(2, c.executing());
        count(read10(0, 1), null, 1).recycle();
        assertEquals(2, c.executing());
    }

    @Test
    void checkConditionsAreCountedBySenseKeyAndMoveNoBytes() {
        long blocks = (8L << 20) / 512;
        ScsiTask t = count(read10(blocks, 1), null, 1); // beyond the end: refused while decoded, still completed here
        assertEquals(ScsiStatus.CHECK_CONDITION, t.status());
        t.recycle();
        assertEquals(1, c.checkConditions(0x5)); // ILLEGAL REQUEST
        assertEquals(0, c.bytes(CommandCounters.Op.READ));

        ScsiTask refused = new ScsiTask(h);
        refused.init(A, 0, Unpooled.wrappedBuffer(read10(blocks, 1)), 0, 10, 512, true, false);
        h.target.prepare(refused);
        c.checkCondition(refused); // as the transport counts a command refused before it executes
        assertEquals(2, c.checkConditions(0x5));
    }
}
