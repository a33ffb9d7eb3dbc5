package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The task set of a logical unit: PREEMPT AND ABORT waits for the preempted nexus's executing tasks and has the
 * transport end the rest; units come and go while the target serves; completions from other threads come back to the
 * unit's thread.
 */
class TaskSetTest {
    private static final ItNexus C = new ItNexus("iqn.1994-05.com.redhat:gamma", 3, Harness.TARGET, 1);

    /** A RAM disk that hands each write to {@code writes} instead of doing it. */
    static class RamWithWrites implements BlockDevice {
        final RamBlockDevice ram = new RamBlockDevice(1 << 20, 512);
        final Consumer<Runnable> writes;

        RamWithWrites(Consumer<Runnable> writes) {
            this.writes = writes;
        }

        @Override
        public int blockSize() {
            return ram.blockSize();
        }

        @Override
        public long blockCount() {
            return ram.blockCount();
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            ram.read(offset, length, dst, done);
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            writes.accept(() -> ram.write(offset, src, fua, done));
        }

        @Override
        public void flush(IoCompletion done) {
            ram.flush(done);
        }

        @Override
        public void unmap(long offset, long length, IoCompletion done) {
            ram.unmap(offset, length, done);
        }

        @Override
        public boolean isMapped(long offset) {
            return ram.isMapped(offset);
        }

        @Override
        public long nextMappingChange(long offset) {
            return ram.nextMappingChange(offset);
        }

        @Override
        public void close() {
            ram.close();
        }
    }

    /** A RAM disk whose writes complete only when the test says so. */
    static final class HeldWrites extends RamWithWrites {
        final ArrayDeque<Runnable> held;

        HeldWrites() {
            this(new ArrayDeque<>());
        }

        private HeldWrites(ArrayDeque<Runnable> held) {
            super(held::add);
            this.held = held;
        }

        void releaseAll() {
            while (!held.isEmpty()) {
                held.poll().run();
            }
        }
    }

    private final List<ScsiTask> completed = new ArrayList<>();
    private final ScsiTaskListener listener = completed::add;

    private ScsiTask start(ScsiTarget target, ItNexus nexus, byte[] cdb, byte[] data) {
        ScsiTask t = new ScsiTask(listener);
        t.init(
                nexus,
                0,
                Unpooled.wrappedBuffer(cdb),
                0,
                cdb.length,
                data == null ? 0 : data.length,
                false,
                data != null);
        assertTrue(target.prepare(t), "prepare");
        if (data != null) {
            t.dataOut(PooledByteBufAllocator.DEFAULT.directBuffer(data.length).writeBytes(data));
        }
        target.execute(t);
        return t;
    }

    private static byte[] prout(int serviceAction, int type) {
        return cdb(String.format("5f %02x %02x 00 00 00 00 00 18 00", serviceAction, type));
    }

    private static byte[] proutList(long key, long serviceActionKey) {
        byte[] p = new byte[24];
        Cdb.putLong(p, 0, key);
        Cdb.putLong(p, 8, serviceActionKey);
        return p;
    }

    @Test
    void preemptAndAbortWaitsForThePreemptedNexusTasksAndAsksTheTransportForTheRest() {
        HeldWrites disk = new HeldWrites();
        LogicalUnit lu = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), disk);
        ScsiTarget target = new ScsiTarget(Harness.TARGET, List.of(lu), PooledByteBufAllocator.DEFAULT);
        List<ItNexus> askedTransport = new ArrayList<>();
        target.transportAborts((nexus, lun) -> askedTransport.add(nexus));

        start(target, A, prout(0, 0), proutList(0, 0xA)).recycle();
        start(target, B, prout(0, 0), proutList(0, 0xB)).recycle();
        start(target, C, prout(0, 0), proutList(0, 0xC)).recycle();
        start(target, B, prout(1, 5), proutList(0xB, 0)).recycle(); // B holds WRITE EXCLUSIVE - REGISTRANTS ONLY
        completed.clear();
        ScsiTask bWrite = start(target, B, write10(8, 1), new byte[512]);
        ScsiTask cWrite = start(target, C, write10(16, 1), new byte[512]);
        assertEquals(2, lu.executing());

        ScsiTask preempt = start(target, A, prout(5, 5), proutList(0xA, 0xB));
        assertTrue(bWrite.aborted(), "the preempted nexus's executing WRITE is aborted");
        assertFalse(cWrite.aborted(), "another registrant's WRITE is not");
        assertEquals(List.of(B), askedTransport, "the transport ends B's tasks not yet at the unit");
        assertTrue(
                completed.isEmpty(), "PREEMPT AND ABORT completes only when B's WRITE can no longer touch the medium");

        disk.releaseAll();
        assertTrue(completed.contains(preempt), "completed once the aborted WRITE finished");
        assertEquals(ScsiStatus.GOOD, preempt.status());
        assertTrue(completed.indexOf(bWrite) < completed.indexOf(preempt));
        assertEquals(0, lu.executing());

        completed.clear();
        ScsiTask after = start(target, B, cdb("00 00 00 00 00 00"), null);
        Harness.assertSense(after, SenseReason.REGISTRATIONS_PREEMPTED);
        ScsiTask bAgain = start(target, B, write10(8, 1), new byte[512]);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, bAgain.status(), "A holds the reservation now");
    }

    @Test
    void aTaskAbortedBeforeItReachesTheUnitDoesNotRun() {
        Harness h = new Harness();
        ScsiTask t = new ScsiTask(listener);
        byte[] w = write10(0, 1);
        t.init(A, 0, Unpooled.wrappedBuffer(w), 0, w.length, 512, false, true);
        assertTrue(h.target.prepare(t));
        t.dataOut(PooledByteBufAllocator.DEFAULT.directBuffer(512).writeZero(512));
        t.dataOut.setByte(0, 0x5a);
        t.abort();
        h.target.execute(t);
        assertEquals(ScsiStatus.TASK_ABORTED, t.status());
        t.recycle();
        assertEquals(0, h.good(A, 0, Harness.read10(0, 1), null)[0], "nothing written");
    }

    @Test
    void unitsComeAndGoWhileTheTargetServes() {
        Harness h = new Harness(512, 1 << 20, 0);
        h.good("00 00 00 00 00 00"); // A uses LUN 0, so it hears of inventory changes there
        LogicalUnit added =
                new LogicalUnit(3, LunIdentity.derive(Harness.TARGET, 3, null), new RamBlockDevice(1 << 20, 512));
        h.target.add(added);
        assertEquals(
                List.of(0, 3), h.target.units().stream().map(LogicalUnit::lun).toList());
        h.check("00 00 00 00 00 00", SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
        h.good(A, 3, cdb("00 00 00 00 00 00"), null);
        byte[] luns = h.good("a0 00 00 00 00 00 00 00 10 00 00 00");
        assertEquals(16, Cdb.u32(luns, 0), "two LUNs listed");

        LogicalUnit removed = h.target.remove(3);
        assertNotNull(removed);
        assertNull(h.target.unit(3));
        h.check(A, 3, cdb("00 00 00 00 00 00"), null, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        h.check("00 00 00 00 00 00", SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
        assertEquals(8, Cdb.u32(h.good("a0 00 00 00 00 00 00 00 10 00 00 00"), 0), "one LUN listed");
        boolean[] idle = new boolean[1];
        removed.retire(() -> idle[0] = true);
        assertTrue(idle[0], "a unit with no task is idle at once");
    }

    @Test
    void aRetiredUnitWaitsForItsTasksAndRefusesNewOnes() {
        HeldWrites disk = new HeldWrites();
        LogicalUnit lu = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), disk);
        ScsiTarget target = new ScsiTarget(Harness.TARGET, List.of(lu), PooledByteBufAllocator.DEFAULT);
        ScsiTask inFlight = start(target, A, write10(0, 1), new byte[512]);
        boolean[] idle = new boolean[1];
        target.remove(0);
        lu.retire(() -> idle[0] = true);
        assertFalse(idle[0]);
        ScsiTask late = new ScsiTask(listener);
        byte[] tur = cdb("00 00 00 00 00 00");
        late.init(A, 0, Unpooled.wrappedBuffer(tur), 0, 6, 0, false, false);
        late.unit = lu; // resolved before the removal, executed after it
        late.kind = CommandKind.TEST_UNIT_READY;
        target.execute(late);
        Harness.assertSense(late, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        disk.releaseAll();
        assertEquals(ScsiStatus.GOOD, inFlight.status());
        assertTrue(idle[0], "idle once the last task completed");
    }

    @Test
    void completionsOnAnotherThreadComeBackToTheUnitsThread() throws Exception {
        ExecutorService unitThread = Executors.newSingleThreadExecutor();
        ExecutorService ioThread = Executors.newSingleThreadExecutor();
        try {
            Thread[] owner = new Thread[1];
            unitThread.submit(() -> owner[0] = Thread.currentThread()).get();
            BlockDevice ram = new RamWithWrites(ioThread::execute);
            LogicalUnit lu = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), ram);
            lu.thread(new LunThread() {
                @Override
                public boolean isCurrent() {
                    return Thread.currentThread() == owner[0];
                }

                @Override
                public void execute(Runnable r) {
                    unitThread.execute(r);
                }
            });
            ScsiTarget target = new ScsiTarget(Harness.TARGET, List.of(lu), PooledByteBufAllocator.DEFAULT);
            Thread[] completedOn = new Thread[1];
            CountDownLatch done = new CountDownLatch(1);
            ScsiTask t = new ScsiTask(task -> {
                completedOn[0] = Thread.currentThread();
                done.countDown();
            });
            byte[] w = write10(0, 1);
            t.init(A, 0, Unpooled.wrappedBuffer(w), 0, w.length, 512, false, true);
            assertTrue(target.prepare(t));
            t.dataOut(PooledByteBufAllocator.DEFAULT.directBuffer(512).writeZero(512));
            unitThread.execute(() -> target.execute(t));
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertEquals(owner[0], completedOn[0], "the listener runs on the unit's thread");
            unitThread.submit(t::recycle).get();
        } finally {
            unitThread.shutdownNow();
            ioThread.shutdownNow();
        }
    }
}
