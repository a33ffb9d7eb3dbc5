package io.numaiscsi.daemon.registry;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ends a backing store's service: every acknowledged write made durable (a write-back cache flushed), then closed. */
final class DeviceShutdown {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceShutdown.class);
    private static final long FLUSH_TIMEOUT_SECONDS = 30;

    private DeviceShutdown() {}

    static void flushAndClose(BlockDevice device, String what) {
        CompletableFuture<IoStatus> flushed = new CompletableFuture<>();
        device.flush(flushed::complete);
        try {
            IoStatus s = flushed.get(FLUSH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (s != IoStatus.OK) {
                LOG.error("{}: flush before close failed: {}", what, s);
            }
        } catch (Exception e) {
            LOG.error("{}: flush before close failed", what, e);
        }
        try {
            device.close();
        } catch (Exception e) {
            LOG.error("{}: closing the backing store failed", what, e);
        }
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
