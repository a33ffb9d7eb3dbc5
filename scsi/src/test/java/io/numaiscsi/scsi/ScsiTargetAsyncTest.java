package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.backstore.FileBlockDevice;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The target over a file device: completions arrive on the I/O thread; COMPARE AND WRITE is serialised. */
class ScsiTargetAsyncTest {
    @TempDir
    Path dir;

    private ExecutorService io;
    private FileBlockDevice device;
    private ScsiTarget target;

    private static final class Waiter implements ScsiTaskListener {
        final CountDownLatch done;
        volatile Thread thread;

        Waiter(int count) {
            done = new CountDownLatch(count);
        }

        @Override
        public void taskComplete(ScsiTask task) {
            thread = Thread.currentThread();
            done.countDown();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        io = Executors.newFixedThreadPool(2);
        device = FileBlockDevice.open(dir.resolve("lun0.img"), 4 << 20, 4096, io);
        target = new ScsiTarget(
                Harness.TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device)),
                PooledByteBufAllocator.DEFAULT);
    }

    @AfterEach
    void tearDown() {
        device.close();
        io.shutdownNow();
    }

    private ScsiTask start(ScsiTaskListener l, byte[] cdb, byte[] data) {
        ScsiTask t = new ScsiTask(l);
        t.init(
                Harness.A,
                0,
                Unpooled.wrappedBuffer(cdb),
                0,
                cdb.length,
                data == null ? 1 << 20 : data.length,
                data == null,
                data != null);
        assertTrue(target.prepare(t));
        if (data != null) {
            t.dataOut(Unpooled.wrappedBuffer(data));
        }
        target.execute(t);
        return t;
    }

    @Test
    void writeAndReadCompleteOnTheIoThread() throws Exception {
        byte[] data = Harness.pattern(8192, 3);
        Waiter w = new Waiter(1);
        ScsiTask write = start(w, Harness.cdb("8a 08 0000000000000002 00000002 00 00"), data);
        assertTrue(w.done.await(10, TimeUnit.SECONDS));
        assertNotSame(Thread.currentThread(), w.thread);
        assertEquals(ScsiStatus.GOOD, write.status());
        write.recycle();

        Waiter r = new Waiter(1);
        ScsiTask read = start(r, Harness.read10(2, 2), null);
        assertTrue(r.done.await(10, TimeUnit.SECONDS));
        assertArrayEquals(data, ByteBufUtil.getBytes(read.dataIn()));
        read.recycle();
    }

    @Test
    void compareAndWritesOnTheSameLbaAreSerialised() throws Exception {
        byte[] one = Harness.pattern(4096, 1);
        byte[] two = Harness.pattern(4096, 2);
        // both expect zeros: exactly one can win, the other must see the first one's data
        byte[] first = new byte[8192];
        System.arraycopy(one, 0, first, 4096, 4096);
        byte[] second = new byte[8192];
        System.arraycopy(two, 0, second, 4096, 4096);
        Waiter w = new Waiter(2);
        ScsiTask a = start(w, Harness.cdb("89 00 0000000000000005 000000 01 00 00"), first);
        ScsiTask b = start(w, Harness.cdb("89 00 0000000000000005 000000 01 00 00"), second);
        assertTrue(w.done.await(10, TimeUnit.SECONDS));
        int good = (a.status() == ScsiStatus.GOOD ? 1 : 0) + (b.status() == ScsiStatus.GOOD ? 1 : 0);
        assertEquals(1, good, "one COMPARE AND WRITE wins, the other miscompares");
        ScsiTask loser = a.status() == ScsiStatus.GOOD ? b : a;
        byte[] winner = a.status() == ScsiStatus.GOOD ? one : two;
        Harness.assertSense(loser, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION);
        a.recycle();
        b.recycle();
        Waiter r = new Waiter(1);
        ScsiTask read = start(r, Harness.read10(5, 1), null);
        assertTrue(r.done.await(10, TimeUnit.SECONDS));
        assertArrayEquals(winner, ByteBufUtil.getBytes(read.dataIn()), "the medium holds the winner's data");
        read.recycle();
    }
}
