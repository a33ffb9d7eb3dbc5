package io.numaiscsi.blockdev.backstore;

import java.util.concurrent.Executor;

/**
 * For a file on tmpfs without swap: reads, writes and flushes of at most {@link #INLINE_MAX} bytes run on the
 * caller's thread, the rest (and unmap) on the thread pool. tmpfs pages are memory that cannot be swapped out here,
 * so such a request is a copy of a few microseconds that never waits for a device, and running it in place saves the
 * two thread hand-offs (to a pool thread and back) that cost more than the copy. io_uring does not help on tmpfs:
 * it completes no tmpfs read during submission and hands each to its kernel workers (measured,
 * fio-tests/bench/results/2026-11-25-backing-io). Larger requests stay on the pool, where their copy runs beside
 * the event thread's network work.
 */
final class TmpfsInlineIo implements BackingIo {
    /** The largest request copied in place: at most 64 KiB, as the small-I/O paths elsewhere. */
    static final int INLINE_MAX = 64 * 1024;

    private final ThreadPoolBackingIo pool;

    TmpfsInlineIo(Executor executor) {
        this.pool = new ThreadPoolBackingIo(executor);
    }

    @Override
    public void execute(IoRequest r) {
        boolean small = r.op == IoRequest.FLUSH
                || ((r.op == IoRequest.READ || r.op == IoRequest.WRITE) && r.length <= INLINE_MAX);
        if (small) {
            r.run();
        } else {
            pool.execute(r);
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String name() {
        return "inline (tmpfs)";
    }
}
