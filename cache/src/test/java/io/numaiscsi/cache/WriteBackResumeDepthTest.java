package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Write-back batches and parked writes run one after another, never one inside another: with a synchronous
 * backing store a batch completes inline and starts the next from inside itself, and a resumed write that parks
 * again runs a batch inline that resumes the next parked write. Nested, a long run overflowed the stack (seen as a
 * StackOverflowError in CacheRequest.wbStep (now WriteBackWrite.step) on a backing-io thread under CacheModesTest, and a hung fio run;
 * reproduced here on the old code: 12,177 of 20,000 writes completed, then StackOverflowError in startBatch /
 * batchArrive / batchFinished / runNextExclusive).
 */
class WriteBackResumeDepthTest {
    private static final int BLOCK = 4096;
    private static final int WRITES = 20_000;

    @Test
    void thousandsOfParkedWritesCompleteWithoutDeepStacks() throws Exception {
        RamBlockDevice ram = new RamBlockDevice(64L << 20, 512);
        // one partition of four slots per node: almost every write parks
        CachedBlockDevice cache = Support.cache(ram, 4 * BLOCK, BLOCK, 1, 1, WritePolicy.WRITE_BACK);
        AtomicInteger ok = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch all = new CountDownLatch(WRITES);
        List<Thread> clients = new ArrayList<>();
        try {
            for (int c = 0; c < 4; c++) {
                int client = c;
                Thread t = new Thread(
                        () -> {
                            try {
                                for (int i = client; i < WRITES; i += 4) {
                                    ByteBuf data = Unpooled.wrappedBuffer(Support.pattern(BLOCK, i));
                                    cache.write((long) (i % 4096) * BLOCK, data, false, st -> {
                                        if (st == IoStatus.OK) {
                                            ok.incrementAndGet();
                                        }
                                        all.countDown();
                                    });
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "client-" + c);
                t.setUncaughtExceptionHandler((th, e) -> failure.compareAndSet(null, e));
                clients.add(t);
                t.start();
            }
            for (Thread t : clients) {
                t.join(60_000);
            }
            assertTrue(
                    all.await(60, TimeUnit.SECONDS),
                    (WRITES - all.getCount()) + " of " + WRITES + " writes completed"
                            + (failure.get() == null ? "" : ", failure: " + failure.get()));
            assertEquals(null, failure.get());
            assertEquals(WRITES, ok.get());
            assertEquals(IoStatus.OK, Support.flush(cache));
        } finally {
            cache.close();
        }
    }
}
