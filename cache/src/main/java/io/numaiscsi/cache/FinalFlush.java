package io.numaiscsi.cache;

import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A write-back cache's last flush as it closes: waited for up to 30 s; a failure or a timeout is logged. */
final class FinalFlush implements IoCompletion {
    private static final Logger LOG = LoggerFactory.getLogger(CachedBlockDevice.class);
    private static final int WAIT_SECONDS = 30;

    private final CountDownLatch latch = new CountDownLatch(1);
    private volatile IoStatus status;

    private FinalFlush() {}

    /** Starts the flush through {@code flush} and waits for it. */
    static void run(Consumer<IoCompletion> flush) {
        FinalFlush f = new FinalFlush();
        flush.accept(f);
        if (!f.await()) {
            LOG.warn("cache close: the final flush did not finish in {} s", WAIT_SECONDS);
        } else if (f.status != IoStatus.OK) {
            LOG.warn("cache close: the final flush failed: {}", f.status);
        }
    }

    @Override
    public void ioComplete(IoStatus st) {
        status = st;
        latch.countDown();
    }

    private boolean await() {
        try {
            return latch.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
