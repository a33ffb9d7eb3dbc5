package io.numaiscsi.blockdev.backstore;

/**
 * How a {@link FileBlockDevice} carries out its requests: blocking calls on a thread pool
 * ({@link ThreadPoolBackingIo}) or an io_uring ring ({@link UringBackingIo}).
 */
interface BackingIo {

    /**
     * Starts {@code r}; it ends in {@link FileBlockDevice#finish} on some thread, possibly before this returns (a read
     * of cached pages that the kernel completes during submission).
     */
    void execute(IoRequest r);

    /** No new requests; waits a bounded time for those in flight. The device's fds stay open until this returns. */
    void close();

    /** For the log: "threads" or "io_uring". */
    String name();
}
