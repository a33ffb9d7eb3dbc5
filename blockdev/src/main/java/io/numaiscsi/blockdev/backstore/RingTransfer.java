package io.numaiscsi.blockdev.backstore;

import io.numaiscsi.blockdev.IoStatus;

/**
 * What one io_uring completion means for its request, as a pure step over the request's transfer state: finished
 * with a status, or to be submitted again (the rest of a short transfer, or the fdatasync of a FUA write).
 */
final class RingTransfer {
    static final int ENOSPC = 28;
    static final int ECANCELED = 125;

    private RingTransfer() {}

    /**
     * Applies the kernel's {@code res} (bytes transferred or -errno) to {@code r}: null when {@code r} must be queued
     * again, else its final status. A read that meets the end of the file (res 0: the file was truncated behind the
     * device's back) reads the rest as zeros, as the thread pool does; a write that moves nothing is a medium error.
     * A short O_DIRECT transfer that leaves the rest unaligned finishes through the buffered fd.
     */
    static IoStatus apply(IoRequest r, long res, int bufferedFd, int alignment) {
        if (res < 0) {
            return errnoStatus((int) -res);
        }
        if (r.syncing) {
            return IoStatus.OK;
        }
        int n = (int) res;
        if (n == 0) {
            if (r.op != IoRequest.READ) {
                return IoStatus.MEDIUM_ERROR;
            }
            r.buf.setZero(r.index + (int) r.length - r.left, r.left);
            r.left = 0;
        }
        r.address += n;
        r.position += n;
        r.left -= n;
        if (r.left > 0) {
            if (r.direct && n % alignment != 0) {
                r.direct = false;
                r.fd = bufferedFd;
            }
            return null;
        }
        if (r.op == IoRequest.WRITE && r.fua) {
            r.syncing = true;
            return null;
        }
        return IoStatus.OK;
    }

    /** The IoStatus the thread pool gives the same failure: ENOSPC is NO_SPACE, a cancelled request UNAVAILABLE. */
    static IoStatus errnoStatus(int errno) {
        return switch (errno) {
            case ENOSPC -> IoStatus.NO_SPACE;
            case ECANCELED -> IoStatus.UNAVAILABLE;
            default -> IoStatus.MEDIUM_ERROR;
        };
    }
}
