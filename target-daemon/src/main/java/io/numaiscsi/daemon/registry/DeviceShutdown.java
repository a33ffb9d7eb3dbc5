package io.numaiscsi.daemon.registry;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ends a backing store's service: every acknowledged write made durable (a write-back cache flushed), then closed. */
final class DeviceShutdown {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceShutdown.class);
    private static final long FLUSH_TIMEOUT_SECONDS = 30;

    private DeviceShutdown() {}

    /**
     * Flushes every LUN's device at once and waits for all, at most {@code limit}: at a stop, while the LUNs' threads
     * still run (a write in flight when its connection closed completes through them), so that what a write-back
     * cache holds reaches the store before anything is closed.
     */
    static void flushAll(List<RegisteredLun> luns, Duration limit) {
        List<CompletableFuture<IoStatus>> flushes = new ArrayList<>(luns.size());
        for (RegisteredLun lun : luns) {
            flushes.add(flush(lun.device()));
        }
        long deadline = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < luns.size(); i++) {
            if (!awaitFlush(flushes.get(i), luns.get(i).describe(), deadline, limit.toSeconds(), "of the stop")) {
                return;
            }
        }
    }

    static void flushAndClose(BlockDevice device, String what) {
        awaitFlush(
                flush(device),
                what,
                System.nanoTime() + TimeUnit.SECONDS.toNanos(FLUSH_TIMEOUT_SECONDS),
                FLUSH_TIMEOUT_SECONDS,
                "of closing it");
        try {
            device.close();
        } catch (Exception e) {
            LOG.error("{}: closing the backing store failed: {}", what, e.getMessage());
            LOG.debug("closing the backing store", e);
        }
    }

    private static CompletableFuture<IoStatus> flush(BlockDevice device) {
        CompletableFuture<IoStatus> flushed = new CompletableFuture<>();
        device.flush(flushed::complete);
        return flushed;
    }

    /**
     * Waits until {@code deadlineNanos} (at most {@code limitSeconds} after {@code when}) for a flush, logging a
     * failure; false when interrupted.
     */
    private static boolean awaitFlush(
            CompletableFuture<IoStatus> flushed, String what, long deadlineNanos, long limitSeconds, String when) {
        try {
            IoStatus s = flushed.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (s != IoStatus.OK) {
                LOG.error("{}: writing its cached data to the store failed: {}", what, s);
            }
        } catch (TimeoutException e) {
            LOG.error(
                    "{}: its cached data was not written to the store within {} s {}; what the cache still held is lost",
                    what,
                    limitSeconds,
                    when);
        } catch (ExecutionException e) { // flush completes its future normally: kept for get()'s contract
            LOG.error(
                    "{}: writing its cached data to the store failed: {}",
                    what,
                    e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    /** Closes what a LUN used besides its device, logging a failure. */
    static void closeQuietly(AutoCloseable c, String what) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.error("{}: closing {} failed: {}", what, c, e.getMessage());
        }
    }
}
