package io.numaiscsi.daemon;

import io.numaiscsi.blockdev.backstore.FileBlockDevice;
import io.numaiscsi.blockdev.backstore.IoUring;
import io.numaiscsi.blockdev.backstore.LibUringShim;
import io.numaiscsi.config.DaemonSettings;
import java.io.IOException;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code daemon.backing-io} resolved once at start and logged in one line: file LUNs get an io_uring ring each, or
 * stay on their node's backing-io threads; under {@code auto} a file on tmpfs of a machine without swap has its small
 * requests done in place on the caller's thread instead (io_uring does not help there).
 */
final class BackingIoChoice {
    private static final Logger LOG = LoggerFactory.getLogger(BackingIoChoice.class);

    /** null: the threads. */
    private final LibUringShim shim;
    /** {@code io_uring} was asked for by name: a LUN whose ring the kernel refuses does not open. */
    private final boolean required;
    /** {@code auto}: small requests to a file on tmpfs run in place (without swap). */
    private final boolean tmpfsInline;

    private BackingIoChoice(LibUringShim shim, boolean required, boolean tmpfsInline) {
        this.shim = shim;
        this.required = required;
        this.tmpfsInline = tmpfsInline;
    }

    /** @throws IOException {@code io_uring} asked for by name where rings cannot be created (the message says why) */
    static BackingIoChoice resolve(DaemonSettings.BackingIo configured) throws IOException {
        if (configured == DaemonSettings.BackingIo.THREADS) {
            LOG.info("backing I/O: threads (daemon.backing-io: threads)");
            return new BackingIoChoice(null, false, false);
        }
        String why = IoUring.unavailableReason();
        if (why == null) {
            LOG.info(
                    "backing I/O: io_uring (daemon.backing-io: {}; the kernel grants rings): a ring per file LUN, "
                            + "submitted from the caller's thread; unmap on the backing-io threads",
                    configured.configName());
            return new BackingIoChoice(
                    IoUring.shim(),
                    configured == DaemonSettings.BackingIo.IO_URING,
                    configured == DaemonSettings.BackingIo.AUTO);
        }
        if (configured == DaemonSettings.BackingIo.IO_URING) {
            throw new IOException(
                    "daemon.backing-io: io_uring is not available here: " + why + " (use auto or threads)");
        }
        LOG.info("backing I/O: threads (daemon.backing-io: auto; io_uring unavailable: {})", why);
        return new BackingIoChoice(null, false, true);
    }

    /** Whether file LUNs get rings. */
    boolean ioUring() {
        return shim != null;
    }

    /**
     * Gives {@code device} its ring when io_uring is in use. Under {@code auto} a ring the kernel refuses (too many
     * rings, memory lock limit) leaves that LUN on the threads with a warning; under {@code io_uring} the device is
     * closed and the LUN does not open.
     */
    void apply(FileBlockDevice device, ThreadFactory reapers, String lun) throws IOException {
        if (!required && device.onTmpfs()) {
            // measured (fio-tests/bench/results/2026-11-25-backing-io): tmpfs reads never complete during submission,
            // so each goes through io_uring's kernel workers and a reaper: 1.10-1.40x the threads' CPU per 4K read
            if (tmpfsInline && SwapSpace.none()) {
                device.useTmpfsInline();
                LOG.info(
                        "{}: its file is on tmpfs and this machine has no swap: requests of up to 64 KiB are copied in"
                                + " place on the LUN's thread, larger ones and unmaps on the backing-io threads"
                                + " (daemon.backing-io: threads keeps them all on the threads)",
                        lun);
            } else if (shim != null || tmpfsInline) {
                LOG.info(
                        "{}: its file is on tmpfs{}; this LUN uses the backing-io threads (io_uring costs more there: no"
                                + " read completes during submission; daemon.backing-io: io_uring forces a ring)",
                        lun,
                        tmpfsInline
                                ? " and this machine has swap (a swapped-out page would stall the LUN's thread)"
                                : "");
            }
            return;
        }
        if (shim == null) {
            return;
        }
        try {
            device.useIoUring(shim, reapers);
        } catch (IOException e) {
            if (required) {
                device.close();
                throw new IOException(lun + ": daemon.backing-io: io_uring: " + e.getMessage(), e);
            }
            LOG.warn("{}: no io_uring ring ({}); this LUN uses the backing-io threads", lun, e.getMessage());
        }
    }
}
