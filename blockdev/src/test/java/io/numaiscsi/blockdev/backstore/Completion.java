package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Records one I/O completion and the thread it ran on. */
final class Completion implements IoCompletion {
    private final CountDownLatch latch = new CountDownLatch(1);
    volatile IoStatus status;
    volatile Thread thread;

    @Override
    public void ioComplete(IoStatus s) {
        status = s;
        thread = Thread.currentThread();
        latch.countDown();
    }

    IoStatus await() throws InterruptedException {
        assertTrue(latch.await(10, TimeUnit.SECONDS), "I/O did not complete");
        return status;
    }
}
