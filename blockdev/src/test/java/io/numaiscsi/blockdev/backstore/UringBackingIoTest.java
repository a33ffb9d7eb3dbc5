package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.CompletionPolling;
import io.numaiscsi.blockdev.IoStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The io_uring engine against today's thread pool: the same requests through a FileBlockDevice give the same data
 * and statuses on both (parameterized), plus what only the ring has (what it leaves to the pool, kernel errors, its
 * reaper thread ending at close). The ring tests are skipped, saying why, where the kernel refuses rings or the
 * build has no shim.
 */
class UringBackingIoTest {
    private static final long SIZE = 8L << 20;

    enum Engine {
        THREADS,
        IO_URING
    }

    @TempDir
    Path dir;

    private ExecutorService pool;
    private final AtomicInteger pooled = new AtomicInteger();
    private final List<Thread> reapers = new CopyOnWriteArrayList<>();
    private final ThreadFactory reaperThreads = r -> {
        Thread t = new Thread(r, "test-uring-reaper");
        t.setDaemon(true);
        reapers.add(t);
        return t;
    };
    private FileBlockDevice d;

    @BeforeEach
    void startPool() {
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> new Thread(r, "test-io"));
        pool = threads;
    }

    @AfterEach
    void close() {
        if (d != null) {
            d.close();
        }
        pool.shutdownNow();
    }

    private FileBlockDevice open(Engine engine, String name, boolean directIo) throws IOException {
        FileBlockDevice dev = FileBlockDevice.open(
                dir.resolve(name),
                SIZE,
                512,
                r -> {
                    pooled.incrementAndGet();
                    pool.execute(r);
                },
                directIo);
        if (engine == Engine.IO_URING) {
            String why = IoUring.unavailableReason();
            if (why != null) {
                dev.close();
            }
            assumeTrue(why == null, () -> "io_uring unavailable: " + why);
            dev.useIoUring(IoUring.shim(), reaperThreads);
            assertEquals("io_uring", dev.backingIo());
        } else {
            assertEquals("threads", dev.backingIo());
        }
        return dev;
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static ByteBuf aligned(int capacity) {
        return Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(capacity + 4096).alignedSlice(4096))
                .clear();
    }

    private IoStatus write(long offset, ByteBuf src, boolean fua) throws InterruptedException {
        Completion c = new Completion();
        d.write(offset, src, fua, c);
        return c.await();
    }

    private byte[] read(long offset, int length, ByteBuf dst) throws InterruptedException {
        Completion c = new Completion();
        d.read(offset, length, dst, c);
        assertEquals(IoStatus.OK, c.await());
        return ByteBufUtil.getBytes(dst, dst.writerIndex() - length, length);
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void alignedRoundTripThroughDirectMemory(Engine engine) throws Exception {
        d = open(engine, "disk.img", true);
        ByteBuf src = aligned(65536).writeBytes(pattern(65536, 1));
        assertEquals(IoStatus.OK, write(8192, src, false));
        assertEquals(0, src.readerIndex(), "the device leaves src's indexes alone");
        assertArrayEquals(pattern(65536, 1), read(8192, 65536, aligned(65536)));
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void unalignedPooledAndHeapBuffersRoundTrip(Engine engine) throws Exception {
        d = open(engine, "disk.img", true);
        assertEquals(IoStatus.OK, write(512, Unpooled.wrappedBuffer(pattern(1536, 2)), false));
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        try {
            dst.writeByte(7); // appended at the writer index: address and length are not aligned
            assertArrayEquals(pattern(1536, 2), read(512, 1536, dst));
            assertEquals(7, dst.getByte(0));
            assertEquals(1537, dst.writerIndex());
        } finally {
            dst.release();
        }
        assertArrayEquals(pattern(1536, 2), read(512, 1536, Unpooled.buffer(1536)));
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void fuaWriteAndFlush(Engine engine) throws Exception {
        d = open(engine, "disk.img", false);
        assertEquals(IoStatus.OK, write(4096, aligned(4096).writeBytes(pattern(4096, 3)), true));
        Completion c = new Completion();
        d.flush(c);
        assertEquals(IoStatus.OK, c.await());
        assertArrayEquals(pattern(4096, 3), read(4096, 4096, aligned(4096)));
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void aReadAcrossTheEndOfAFileTruncatedBehindTheDevicesBackIsShortThenZeros(Engine engine) throws Exception {
        // buffered: the pool's O_DIRECT channel cannot read on from an unaligned end (EINVAL, a medium error), where
        // the ring goes on through the buffered fd (RingTransferTest)
        d = open(engine, "disk.img", false);
        assertEquals(IoStatus.OK, write(SIZE - 8192, aligned(8192).writeBytes(pattern(8192, 4)), false));
        try (FileChannel ch = FileChannel.open(dir.resolve("disk.img"), StandardOpenOption.WRITE)) {
            ch.truncate(SIZE - 2048);
        }
        byte[] got = read(SIZE - 8192, 8192, aligned(8192));
        byte[] expected = pattern(8192, 4);
        Arrays.fill(expected, 6144, 8192, (byte) 0);
        assertArrayEquals(expected, got);
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void manyConcurrentRequestsBeyondTheRingSizeAllComplete(Engine engine) throws Exception {
        d = open(engine, "disk.img", true);
        int blocks = 3 * UringBackingIo.ENTRIES;
        ByteBuf src = aligned(blocks * 4096);
        for (int i = 0; i < blocks; i++) {
            src.writeBytes(pattern(4096, i));
        }
        assertEquals(IoStatus.OK, write(0, src, false));
        List<Completion> done = new ArrayList<>();
        List<ByteBuf> dsts = new ArrayList<>();
        for (int i = 0; i < blocks; i++) {
            Completion c = new Completion();
            ByteBuf dst = aligned(4096);
            d.read((long) i * 4096, 4096, dst, c);
            done.add(c);
            dsts.add(dst);
        }
        for (int i = 0; i < blocks; i++) {
            assertEquals(IoStatus.OK, done.get(i).await());
            assertArrayEquals(pattern(4096, i), ByteBufUtil.getBytes(dsts.get(i), 0, 4096), "block " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void aCompletionThatThrowsDoesNotStopTheCompletionsAfterIt(Engine engine) throws Exception {
        d = open(engine, "disk.img", true);
        Completion thrower = new Completion();
        d.read(0, 4096, aligned(4096), s -> {
            thrower.ioComplete(s);
            throw new IllegalStateException("a callback's bug");
        });
        assertEquals(IoStatus.OK, thrower.await());
        for (int i = 0; i < 8; i++) {
            assertArrayEquals(new byte[4096], read((long) i * 4096, 4096, aligned(4096)), "read " + i + " after it");
        }
        if (engine == Engine.IO_URING) {
            assertTrue(reapers.stream().allMatch(Thread::isAlive), "the reaper goes on");
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void closeWithRequestsInFlightCompletesEveryOneAndRefusesNewOnes(Engine engine) throws Exception {
        d = open(engine, "disk.img", true);
        List<Completion> done = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Completion c = new Completion();
            d.read((long) (i % 64) * 65536, 65536, aligned(65536), c);
            done.add(c);
        }
        d.close();
        for (Completion c : done) {
            IoStatus s = c.await();
            assertTrue(s == IoStatus.OK || s == IoStatus.UNAVAILABLE, s.toString());
        }
        Completion after = new Completion();
        d.read(0, 4096, aligned(4096), after);
        assertEquals(IoStatus.UNAVAILABLE, after.await());
        for (Thread t : reapers) {
            t.join(10_000);
            assertFalse(t.isAlive(), "the ring's reaper ends once nothing is in flight");
        }
        d = null;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void unmapReadsZeros(Engine engine) throws Exception {
        d = open(engine, "disk.img", true);
        assertEquals(IoStatus.OK, write(0, aligned(131072).writeBytes(pattern(131072, 5)), false));
        Completion c = new Completion();
        d.unmap(65536, 65536, c);
        assertEquals(IoStatus.OK, c.await());
        assertArrayEquals(new byte[65536], read(65536, 65536, aligned(65536)));
        assertArrayEquals(Arrays.copyOf(pattern(131072, 5), 65536), read(0, 65536, aligned(65536)));
    }

    @Test
    void theRingLeavesOnlyUnmapAndBuffersWithoutANativeAddressToThePool() throws Exception {
        d = open(Engine.IO_URING, "disk.img", true);
        write(0, aligned(8192).writeBytes(pattern(8192, 6)), true);
        read(0, 8192, aligned(8192));
        ByteBuf pooledDst = PooledByteBufAllocator.DEFAULT.directBuffer(1024);
        try {
            read(512, 1024, pooledDst);
        } finally {
            pooledDst.release();
        }
        Completion f = new Completion();
        d.flush(f);
        assertEquals(IoStatus.OK, f.await());
        assertEquals(0, pooled.get(), "reads, writes and flushes with direct memory go through the ring");
        read(0, 512, Unpooled.buffer(512));
        Completion u = new Completion();
        d.unmap(0, 4096, u);
        assertEquals(IoStatus.OK, u.await());
        assertEquals(2, pooled.get(), "a heap buffer and an unmap go to the pool");
    }

    @Test
    void bufferedWritesToARegularFileGoToThePoolAndItsReadsThroughTheRing() throws Exception {
        d = open(Engine.IO_URING, "buffered.img", false);
        assertEquals(IoStatus.OK, write(0, aligned(8192).writeBytes(pattern(8192, 7)), false));
        assertEquals(1, pooled.get(), "a buffered write to a regular file goes to the pool");
        assertArrayEquals(pattern(8192, 7), read(0, 8192, aligned(8192)));
        assertEquals(1, pooled.get(), "a buffered read goes through the ring");
    }

    @Test
    void aKernelErrorIsAMediumError() throws Exception {
        d = open(Engine.THREADS, "disk.img", true);
        assumeTrue(IoUring.unavailableReason() == null, IoUring::unavailableReason);
        UringBackingIo ring = UringBackingIo.open(
                IoUring.shim(),
                dir.resolve("disk.img"),
                pool,
                1 << 20,
                null,
                BackingAccess.READ_WRITE,
                4096,
                true,
                reaperThreads); // an fd number nothing has open: EBADF
        try {
            IoRequest r = new IoRequest(d);
            Completion c = new Completion();
            r.op = IoRequest.READ;
            r.offset = 0;
            r.length = 4096;
            r.buf = aligned(4096);
            r.done = c;
            ring.execute(r);
            assertEquals(IoStatus.MEDIUM_ERROR, c.await());
        } finally {
            ring.close();
        }
        assertTrue(ring.freed(), "the reaper freed the ring at close");
    }

    /** Runs {@code body} on a fresh thread that polls (a ThreadLocal the other tests' threads must not have). */
    private static void onPollingThread(ThrowingConsumer body) throws Exception {
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(
                () -> {
                    try {
                        body.accept(CompletionPolling.installOnCurrentThread());
                    } catch (Throwable e) {
                        failure[0] = e;
                    }
                },
                "test-poller");
        t.start();
        t.join(30_000);
        assertFalse(t.isAlive(), "the polling thread did not finish");
        if (failure[0] instanceof Exception e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
    }

    private interface ThrowingConsumer {
        void accept(CompletionPolling polling) throws Exception;
    }

    @Test
    void aPollingThreadReapsItsOwnCompletionsAndTheReaperLeavesThemToIt() throws Exception {
        d = open(Engine.IO_URING, "disk.img", true);
        List<String> threads = new ArrayList<>();
        onPollingThread(polling -> {
            for (int i = 0; i < 20; i++) {
                Completion c = new Completion();
                if (i % 2 == 0) {
                    d.write(i * 8192L, aligned(8192).writeBytes(pattern(8192, i)), false, c);
                } else {
                    d.flush(c); // io_uring always completes fdatasync from its worker: in flight for a while
                }
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (c.status == null && System.nanoTime() < deadline) {
                    polling.poll();
                }
                assertEquals(IoStatus.OK, c.status, "request " + i);
                threads.add(c.thread.getName());
            }
            assertFalse(polling.active(), "nothing in flight: the ring left the poll set");
        });
        assertEquals(List.of("test-poller"), threads.stream().distinct().toList());
        assertArrayEquals(pattern(8192, 18), read(18 * 8192L, 8192, aligned(8192)));
    }

    @Test
    void aRingHandedOffIsReapedByItsReaper() throws Exception {
        d = open(Engine.IO_URING, "disk.img", true);
        Completion c = new Completion();
        onPollingThread(polling -> {
            d.flush(c);
            polling.handOff();
            assertFalse(polling.active());
        });
        assertEquals(IoStatus.OK, c.await(), "the reaper delivered what the poller handed off");
    }

    @Test
    void aRequestFromAThreadThatDoesNotPollIsReapedAfterThePollerEndedWithoutHandingOff() throws Exception {
        d = open(Engine.IO_URING, "disk.img", true);
        Completion first = new Completion();
        onPollingThread(polling -> {
            d.flush(first);
            assumeTrue(polling.active(), "the flush completed during its submission: nothing left to a poller");
        }); // the thread ends as an event loop shut down mid-request does: no poll, no hand-off
        Completion second = new Completion();
        d.flush(second);
        assertEquals(IoStatus.OK, second.await(), "the reaper took over for a thread that does not poll");
        assertEquals(IoStatus.OK, first.await(), "and delivered what the ended poller left in flight");
    }

    @Test
    void aRingClosedWhilePolledLeavesThePollSet() throws Exception {
        d = open(Engine.IO_URING, "disk.img", true);
        Completion c = new Completion();
        onPollingThread(polling -> {
            d.flush(c);
            d.close();
            d = null;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (polling.active() && System.nanoTime() < deadline) {
                polling.poll();
            }
            assertFalse(polling.active(), "a closed ring leaves the poll set");
        });
        assertEquals(IoStatus.OK, c.await(), "what was in flight at close completed");
    }
}
