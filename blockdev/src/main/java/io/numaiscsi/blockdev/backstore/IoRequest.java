package io.numaiscsi.blockdev.backstore;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;

/**
 * One pooled {@link FileBlockDevice} request: no allocation per I/O once the pool is warm. The thread pool runs it
 * ({@link #run}); the io_uring engine keeps its transfer state in the second group of fields.
 */
final class IoRequest implements Runnable {
    static final int READ = 1;
    static final int WRITE = 2;
    static final int FLUSH = 3;
    static final int UNMAP = 4;
    static final int WRITE_ZEROES = 5;

    final FileBlockDevice device;
    int op;
    long offset;
    long length;
    ByteBuf buf;
    boolean fua;
    IoCompletion done;

    // ---- io_uring transfer state (UringBackingIo) ----
    /** The fd the next submission uses: the O_DIRECT one when buffer, offset and length are aligned. */
    int fd;

    boolean direct;
    /** Buffer index where the transfer starts (a read's writer index, a write's reader index). */
    int index;
    /** Native address, file position and bytes of what is still to transfer. */
    long address;

    long position;
    int left;
    /** A flush, or a FUA write whose data is written: the next submission is an fdatasync. */
    boolean syncing;
    /** The kernel's result of the last submission (bytes or -errno). */
    long result;
    /** Intrusive list link: waiting for a ring slot, or reaped and not yet delivered. */
    IoRequest next;

    IoRequest(FileBlockDevice device) {
        this.device = device;
    }

    @Override
    public void run() {
        device.finish(this, device.perform(op, offset, length, buf, fua));
    }
}
