package io.numaiscsi.rbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.backstore.BackingStore;
import java.io.IOException;
import java.util.function.Consumer;
import jnr.ffi.Runtime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A LUN on a Ceph RBD image through librbd's aio calls. Requests are started on the caller's thread (the LUN's) and
 * complete on a librbd thread, which calls the caller's {@link IoCompletion}; the SCSI layer hands that to the LUN's
 * thread as for the other asynchronous stores ({@code ScsiTask.IoStep}).
 *
 * <p>Reads go straight into the caller's buffer when it has one native address (a direct buffer), writes straight
 * from it; other buffers go through a pooled direct bounce buffer. Each request's Java state is a pooled
 * {@link RbdRequest}; librbd allocates its own completion per request (its API has no reusable one).
 *
 * <p>Durability: librbd's cache is off ({@link RadosConnection}), so a write is acknowledged once the OSDs hold it;
 * FUA additionally sets the FUA op flag. UNMAP is rbd discard with partial discards zeroing, so an unmapped range
 * reads as zeros. Errors: a request the cluster does not answer within the client's timeout fails with ETIMEDOUT,
 * which becomes {@link IoStatus#UNAVAILABLE} (NOT READY, retried by initiators); ENOSPC and EDQUOT become
 * {@link IoStatus#NO_SPACE}; anything else a medium error.
 */
public final class RbdBlockDevice extends BackingStore {
    private static final Logger LOG = LoggerFactory.getLogger(RbdBlockDevice.class);
    private static final int INITIAL_REQUESTS = 256;
    private static final long CLOSE_WAIT_MILLIS = 30_000;
    private static LibRbd rbd;

    private final String name;
    /** The loaded library, kept here: the hot path takes no class-wide lock to reach it. */
    private final LibRbd lib;

    private final CephClient client;
    private final String pool;
    private final String imageName;
    /** The client and image the requests go through; replaced after this gateway was fenced ({@link #reopen}). */
    private volatile ImageHandle handle;
    /** Writes need the image's exclusive lock, which {@link ImageOwnership} takes and gives up (a gateway pair). */
    private final boolean exclusive;
    /** Told which handle the cluster refused (blocklisted) or lost the lock under; may be null. */
    private volatile Consumer<ImageHandle> fenceListener;

    private final long size;
    /** Kept reachable: librbd holds the native stub jnr-ffi made for it. */
    private final LibRbd.Completion callback = this::completed;
    /** The native stub of {@link #callback}, made once and kept reachable with it. */
    private final jnr.ffi.Pointer callbackStub;

    private final long callbackAddress;

    private final RbdRequests requests;

    private RbdBlockDevice(
            CephClient client,
            String pool,
            String imageName,
            LibRbd lib,
            ImageHandle handle,
            boolean exclusive,
            int blockSize) {
        super(blockSize);
        this.name = pool + "/" + imageName;
        this.client = client;
        this.pool = pool;
        this.imageName = imageName;
        this.lib = lib;
        this.handle = handle;
        this.exclusive = exclusive;
        handle.writable = !exclusive;
        this.size = handle.size;
        Runtime runtime = Runtime.getRuntime(lib);
        this.callbackStub = runtime.getClosureManager().getClosurePointer(LibRbd.Completion.class, callback);
        this.callbackAddress = callbackStub.address();
        this.requests = new RbdRequests(runtime, INITIAL_REQUESTS);
    }

    static synchronized LibRbd rbd() {
        if (rbd == null) {
            rbd = LibRbd.load();
        }
        return rbd;
    }

    /**
     * Connects as {@code client} and opens {@code pool/imageName}; the LUN has the image's size in blocks of
     * {@code blockSize}.
     *
     * @param exclusive writes need the image's exclusive lock ({@link ImageOwnership} takes it): for an image that
     *                  several gateways export, which must then have the exclusive-lock feature
     * @throws IOException naming the cause: the cluster cannot be reached or refuses the key, the pool or image does not
     *                     exist, the image's size is not a multiple of the block size, or it lacks exclusive-lock
     */
    public static RbdBlockDevice open(
            CephClient client, String pool, String imageName, int blockSize, boolean exclusive) throws IOException {
        if (blockSize != 512 && blockSize != 4096) {
            throw new IOException("block size must be 512 or 4096: " + blockSize);
        }
        String name = pool + "/" + imageName;
        ImageHandle h = ImageHandle.open(client, pool, imageName);
        try {
            if (h.size <= 0 || h.size % blockSize != 0) {
                throw new IOException("RBD image " + name + " has " + h.size
                        + " bytes, not a positive multiple of the block " + "size " + blockSize);
            }
            if (exclusive && !h.hasExclusiveLock()) {
                throw new IOException(
                        "RBD image " + name + " lacks the exclusive-lock feature, which gateways that share an"
                                + " image fence each other with: rbd feature enable " + name + " exclusive-lock");
            }
            LOG.info("RBD image {} opened as {} ({}): {} bytes", name, client.entity(), h.address, h.size);
            return new RbdBlockDevice(client, pool, imageName, rbd(), h, exclusive, blockSize);
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /** {@link #open} of an image only this gateway writes. */
    public static RbdBlockDevice open(CephClient client, String pool, String imageName, int blockSize)
            throws IOException {
        return open(client, pool, imageName, blockSize, false);
    }

    /** "pool/image". */
    public String name() {
        return name;
    }

    @Override
    protected long sizeBytes() {
        return size;
    }

    @Override
    public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        if (!BlockDevice.inRange(offset, length, size)) {
            done.ioComplete(IoStatus.OUT_OF_RANGE);
            return;
        }
        dst.ensureWritable(length);
        RbdRequest r = acquire(RbdRequest.READ, offset, length, done);
        if (r == null) {
            return;
        }
        r.buf = dst;
        r.index = dst.writerIndex();
        long address;
        if (dst.hasMemoryAddress()) {
            address = dst.memoryAddress() + r.index;
        } else {
            r.bounce = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
            address = r.bounce.memoryAddress();
        }
        if (create(r)) {
            started(r, lib.rbd_aio_read(r.image, offset, length, address, r.completion));
        }
    }

    @Override
    public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
        int length = src.readableBytes();
        if (!BlockDevice.inRange(offset, length, size)) {
            done.ioComplete(IoStatus.OUT_OF_RANGE);
            return;
        }
        RbdRequest r = acquireWrite(RbdRequest.WRITE, offset, length, done);
        if (r == null) {
            return;
        }
        r.buf = src;
        r.index = src.readerIndex();
        long address;
        if (src.hasMemoryAddress()) {
            address = src.memoryAddress() + r.index;
        } else {
            r.bounce = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
            r.bounce.writeBytes(src, r.index, length);
            address = r.bounce.memoryAddress();
        }
        if (create(r)) {
            started(
                    r,
                    lib.rbd_aio_write2(
                            r.image, offset, length, address, r.completion, fua ? LibRbd.OP_FLAG_FADVISE_FUA : 0));
        }
    }

    @Override
    public void flush(IoCompletion done) {
        if (exclusive && !handle.writable) {
            // librbd's cache is off, so every write this gateway acknowledged is on the OSDs already; and a handle
            // without the lock (standby, or fenced) writes nothing: nothing to flush. librbd would refuse the flush of
            // a managed image whose lock it does not hold.
            done.ioComplete(IoStatus.OK);
            return;
        }
        RbdRequest r = acquire(RbdRequest.FLUSH, 0, 0, done);
        if (r != null && create(r)) {
            started(r, lib.rbd_aio_flush(r.image, r.completion));
        }
    }

    @Override
    public void unmap(long offset, long length, IoCompletion done) {
        if (!BlockDevice.inRange(offset, length, size)) {
            done.ioComplete(IoStatus.OUT_OF_RANGE);
            return;
        }
        RbdRequest r = acquireWrite(RbdRequest.DISCARD, offset, length, done);
        if (r != null && create(r)) {
            started(r, lib.rbd_aio_discard(r.image, offset, length, r.completion));
        }
    }

    /** librbd's write-zeroes: the OSDs zero (or drop) the objects, no zero pattern crosses the network. */
    @Override
    public boolean writeZeroes(long offset, long length, IoCompletion done) {
        if (!BlockDevice.inRange(offset, length, size)) {
            done.ioComplete(IoStatus.OUT_OF_RANGE);
            return true;
        }
        RbdRequest r = acquireWrite(RbdRequest.WRITE_ZEROES, offset, length, done);
        if (r != null && create(r)) {
            started(r, lib.rbd_aio_write_zeroes(r.image, offset, length, r.completion, 0, 0));
        }
        return true;
    }

    /** Allocation is the cluster's: every block reads as mapped, as on a block device. */
    @Override
    public boolean tracksAllocation() {
        return false;
    }

    @Override
    public boolean isMapped(long offset) {
        return true;
    }

    @Override
    public long nextMappingChange(long offset) {
        return size;
    }

    /**
     * {@link #acquire} for a request that changes the image: refused (UNAVAILABLE, which the initiator retries) unless
     * the handle may write, so a gateway that does not hold the exclusive lock never reaches librbd with a write.
     */
    private RbdRequest acquireWrite(int op, long offset, long length, IoCompletion done) {
        return acquire(op, offset, length, done, true);
    }

    private RbdRequest acquire(int op, long offset, long length, IoCompletion done) {
        return acquire(op, offset, length, done, false);
    }

    /** A pooled request for one call, or null when the device is closed or fenced (done was told UNAVAILABLE). */
    private RbdRequest acquire(int op, long offset, long length, IoCompletion done, boolean writes) {
        ImageHandle h = handle;
        RbdRequest r = requests.take(writes && !h.writable);
        if (r == null) {
            done.ioComplete(IoStatus.UNAVAILABLE);
            return null;
        }
        r.op = op;
        r.offset = offset;
        r.length = length;
        r.done = done;
        r.handle = h;
        r.image = h.image;
        return r;
    }

    /** An aio completion for r; false (r finished) when librbd refuses one. */
    private boolean create(RbdRequest r) {
        int rc = lib.rbd_aio_create_completion(r.slot, callbackAddress, r.completionOut.address());
        if (rc < 0) {
            finish(r, rc);
            return false;
        }
        r.completion = r.completionOut.getLong(0);
        return true;
    }

    /** After an rbd_aio_* call: a refused request is finished now, its completion released. */
    private void started(RbdRequest r, int rc) {
        if (rc < 0) {
            lib.rbd_aio_release(r.completion);
            finish(r, rc);
        }
    }

    /** librbd's callback, on one of its threads. */
    private void completed(long completion, long arg) {
        long rc = lib.rbd_aio_get_return_value(completion);
        lib.rbd_aio_release(completion);
        finish(requests.get((int) arg), rc);
    }

    private void finish(RbdRequest r, long rc) {
        IoStatus status = status(r, rc);
        if (r.op == RbdRequest.READ && status == IoStatus.OK) {
            if (r.bounce != null) {
                r.buf.setBytes(r.index, r.bounce, 0, (int) r.length);
            }
            r.buf.writerIndex(r.index + (int) r.length);
        }
        if (r.bounce != null) {
            r.bounce.release();
        }
        IoCompletion done = r.done;
        r.clear();
        requests.give(r);
        done.ioComplete(status);
    }

    private IoStatus status(RbdRequest r, long rc) {
        if (rc >= 0) {
            if (r.op == RbdRequest.READ && rc != r.length) {
                LOG.warn("{}: short read at offset {}: {} of {} bytes", name, r.offset, rc, r.length);
                return IoStatus.MEDIUM_ERROR;
            }
            return IoStatus.OK;
        }
        int e = (int) -rc;
        boolean changes = r.op != RbdRequest.READ && r.op != RbdRequest.FLUSH;
        if (e == Errno.ESHUTDOWN || (exclusive && changes && e == Errno.EROFS)) {
            Consumer<ImageHandle> listener = fenceListener;
            if (listener != null) {
                listener.accept(r.handle); // blocklisted, or the lock is gone: this gateway was fenced
            }
        }
        IoStatus s = switch (e) {
            case Errno.ETIMEDOUT, Errno.ENOTCONN, Errno.ESHUTDOWN, Errno.EROFS -> IoStatus.UNAVAILABLE;
            case Errno.ENOSPC, Errno.EDQUOT -> IoStatus.NO_SPACE;
            default -> IoStatus.MEDIUM_ERROR;
        };
        LOG.warn(
                "{}: {} at offset {} length {} failed: {} ({})",
                name,
                opName(r.op),
                r.offset,
                r.length,
                Errno.name((int) rc),
                s);
        return s;
    }

    private static String opName(int op) {
        return switch (op) {
            case RbdRequest.READ -> "read";
            case RbdRequest.WRITE -> "write";
            case RbdRequest.FLUSH -> "flush";
            case RbdRequest.DISCARD -> "discard";
            default -> "write-zeroes";
        };
    }

    /** Requests in flight (tests). */
    int inFlight() {
        return requests.inFlight();
    }

    /** No new requests; waits a bounded time for those in flight, then closes the image and the connection. */
    @Override
    public void close() {
        if (!requests.close()) {
            return;
        }
        try {
            if (!requests.awaitIdle(CLOSE_WAIT_MILLIS)) {
                LOG.warn(
                        "{}: {} requests still in flight {} ms after close",
                        name,
                        requests.inFlight(),
                        CLOSE_WAIT_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        handle.close();
    }

    // ---- fencing: used by ImageOwnership ----

    /** Whether writes need the exclusive lock (a gateway pair). */
    public boolean exclusive() {
        return exclusive;
    }

    ImageHandle handle() {
        return handle;
    }

    void fenceListener(Consumer<ImageHandle> listener) {
        fenceListener = listener;
    }

    /** Refuses every new request from now on; those in flight finish (a fenced client's fail at once). */
    void fence() {
        handle.writable = false;
        requests.fence();
    }

    /** Waits up to {@code millis} for the requests in flight; true when none is left. */
    boolean awaitIdle(long millis) throws InterruptedException {
        return requests.awaitIdle(millis);
    }

    /**
     * After {@link #fence}: closes the old client and image and opens them again as a new client (the blocklist names
     * the old one only), not writable. Requests are served again when this returns.
     *
     * @throws IOException the new client could not connect or open the image; the device stays fenced
     */
    void reopen() throws IOException {
        ImageHandle old = handle;
        ImageHandle fresh = ImageHandle.open(client, pool, imageName);
        // a blocklisted client's close can wait for its operations to time out: it must not delay serving again
        Thread closer = new Thread(old::close, "close fenced client " + old.address);
        closer.setDaemon(true);
        closer.start();
        fresh.writable = !exclusive;
        handle = fresh;
        if (requests.unfence()) {
            fresh.close(); // closed meanwhile
        }
        LOG.info("{}: reconnected to the cluster as a new client ({})", name, fresh.address);
    }
}
