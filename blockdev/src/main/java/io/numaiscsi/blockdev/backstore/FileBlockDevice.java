package io.numaiscsi.blockdev.backstore;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.MappingResources;
import io.numaiscsi.numa.DataTouches;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A disk backed by a (sparse) file or a block device ({@link DeviceBacking}). Blocking I/O runs on the injected
 * executor, never on the caller's thread, unless {@link #useIoUring} gives the device an io_uring ring. Aligned
 * requests into aligned direct memory use an O_DIRECT channel, the rest a buffered one; unmap punches holes
 * (fallocate through jnr-ffi; on a block device the kernel zeroes the range, which may deallocate it) or zeroes the
 * range another way where it cannot.
 */
public final class FileBlockDevice extends BackingStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileBlockDevice.class);

    private final Path file;
    /** Bytes served; grows only ({@link #resize}), read by every request's range check on any thread. */
    private volatile long size;

    private final int physicalBlockSize;
    /** A block device: its size is the device's, and unmap may use BLKZEROOUT. */
    private final boolean blockSpecial;

    private final BackingAccess access;
    private final int alignment;
    private final FileChannel buffered;
    private final FileChannel direct;
    private final LibC libc;
    private final int fd;
    private final Executor executor;
    /** How requests are carried out: the executor's threads, or an io_uring ring ({@link #useIoUring}). */
    private volatile BackingIo io;

    private final FileChannelIo channelIo;
    private final IoRequestPool requests = new IoRequestPool(this);
    private volatile boolean closed;
    private volatile MappingResources allocation;
    private DataTouches touches = DataTouches.singleNode();

    FileBlockDevice(
            Path file,
            long size,
            int blockSize,
            int physicalBlockSize,
            boolean blockSpecial,
            BackingHandles handles,
            Executor executor) {
        super(blockSize);
        this.file = file;
        this.size = size;
        this.physicalBlockSize = physicalBlockSize;
        this.blockSpecial = blockSpecial;
        this.access = handles.access();
        this.alignment = handles.alignment();
        this.buffered = handles.buffered();
        this.direct = handles.direct();
        this.libc = handles.libc();
        this.fd = handles.fd();
        this.executor = executor;
        this.io = new ThreadPoolBackingIo(executor);
        this.channelIo = new FileChannelIo(this, file, buffered, direct, alignment, libc, fd, blockSpecial);
    }

    /**
     * Carries reads, writes and flushes out through an io_uring ring of this device (unmap stays on the executor);
     * called before the device serves. {@code reaperThreads} makes the ring's one completion thread.
     *
     * @throws IOException the kernel refuses the ring; the device keeps using the executor
     */
    public void useIoUring(LibUringShim shim, ThreadFactory reaperThreads) throws IOException {
        if (io instanceof UringBackingIo) {
            throw new IllegalStateException(file + " already has an io_uring ring");
        }
        String directPath = direct != null && fd >= 0 ? "/proc/self/fd/" + fd : null;
        io = UringBackingIo.open(shim, file, executor, fd, directPath, access, alignment, !blockSpecial, reaperThreads);
    }

    /**
     * Carries reads, writes and flushes of up to 64 KiB out on the caller's thread ({@link TmpfsInlineIo}); for a file
     * on tmpfs on a machine without swap (the caller checks both), called before the device serves.
     */
    public void useTmpfsInline() {
        if (!(io instanceof ThreadPoolBackingIo)) {
            throw new IllegalStateException(file + " already uses " + io.name());
        }
        io = new TmpfsInlineIo(executor);
    }

    /** "threads", "io_uring" or "inline (tmpfs)": the engine that carries out reads and writes. */
    public String backingIo() {
        return io.name();
    }

    /**
     * Opens {@code file}, creating a sparse file of {@code sizeBytes} (mode 0600) if it is missing. An existing
     * file keeps its data and must already have exactly that size. The file is never reached through a symbolic
     * link and must be a regular file with one link owned by this process's user ({@link BackingFile}); a file group
     * or others may read or write is used with a warning in the log.
     */
    public static FileBlockDevice open(Path file, long sizeBytes, int blockSize, Executor ioExecutor)
            throws IOException {
        return open(file, sizeBytes, blockSize, ioExecutor, true);
    }

    /**
     * As {@link #open(Path, long, int, Executor)}; with {@code directIo} false every read and write goes through
     * the kernel's page cache (the {@code cache.mode: page-cache} A/B baseline).
     */
    public static FileBlockDevice open(Path file, long sizeBytes, int blockSize, Executor ioExecutor, boolean directIo)
            throws IOException {
        return open(file, sizeBytes, blockSize, ioExecutor, directIo, BackingAccess.READ_WRITE);
    }

    /**
     * As {@link #open(Path, long, int, Executor, boolean)}, opened with {@code access}: a read-only file must exist (it
     * is never created) and is opened O_RDONLY.
     */
    public static FileBlockDevice open(
            Path file, long sizeBytes, int blockSize, Executor ioExecutor, boolean directIo, BackingAccess access)
            throws IOException {
        Objects.requireNonNull(ioExecutor, "ioExecutor");
        if (blockSize != 512 && blockSize != 4096) {
            throw new IOException("block size must be 512 or 4096: " + blockSize);
        }
        if (sizeBytes <= 0 || sizeBytes % blockSize != 0) {
            throw new IOException(
                    "size of " + file + " must be a positive multiple of " + blockSize + ": " + sizeBytes);
        }
        BackingFile backing = BackingFile.open(file, sizeBytes, ProcessUser.uid(), access);
        if (backing.warning() != null) {
            LOG.warn("{}", backing.warning());
        }
        if (backing.created()) {
            LOG.info("{}: created, {} bytes (sparse), mode 0600", file, sizeBytes);
        }
        Path handle = backing.handle();
        FileChannel buffered = null;
        FileChannel direct = null;
        try {
            buffered = FileChannel.open(handle, FileChannelIo.channelOptions(access));
            direct = directIo ? FileChannelIo.openDirect(file, handle, access) : null;
        } catch (IOException | RuntimeException e) {
            if (buffered != null) {
                buffered.close();
            }
            backing.close();
            throw e;
        }
        BackingHandles handles = new BackingHandles(
                access, FileChannelIo.fileSystemBlockSize(handle), buffered, direct, backing.libc(), backing.fd());
        return new FileBlockDevice(file, sizeBytes, blockSize, blockSize, false, handles, ioExecutor);
    }

    @Override
    protected long sizeBytes() {
        return size;
    }

    /**
     * Extends the file (sparse) and makes its new size durable before serving up to the new end, so that after a crash
     * the file still has the size the LUN was given.
     */
    @Override
    public void resize(long newBlockCount) throws IOException {
        if (blockSpecial) {
            throw new UnsupportedOperationException(
                    file + " is a block device: the LUN has the device's size (grow the "
                            + "device, then remove the LUN and add it again)");
        }
        if (!access.writable()) {
            throw new UnsupportedOperationException(file + " is opened read-only (a read-only LUN): it cannot grow");
        }
        BlockDevice.requireGrowth(this, newBlockCount);
        if (newBlockCount > Long.MAX_VALUE / blockSize) {
            throw new IllegalArgumentException(newBlockCount + " blocks of " + blockSize + " bytes is too large");
        }
        if (closed) {
            throw new IOException(file + " is closed");
        }
        long old = size;
        long grown = newBlockCount * blockSize;
        if (libc.ftruncate(fd, grown) != 0) {
            int errno = LibC.errno();
            throw new IOException("cannot grow " + file + " to " + grown + " bytes: " + libc.strerror(errno));
        }
        try {
            buffered.force(true);
        } catch (IOException e) {
            libc.ftruncate(fd, old); // nothing can have been written past the old end: the new size was not served yet
            throw new IOException("cannot make the new size of " + file + " durable: " + e.getMessage(), e);
        }
        size = grown;
    }

    @Override
    public int physicalBlockSize() {
        // A file's is reported equal to the logical block: libiscsi 1.19's GET LBA STATUS tests assume one logical
        // block per physical block, and the unmap/hole bookkeeping stays exact per logical block. A device reports its
        // own.
        return physicalBlockSize;
    }

    /** Whether the backing is a file on tmpfs (not a device): memory the kernel copies from, no disk below. */
    public boolean onTmpfs() {
        if (blockSpecial) {
            return false;
        }
        try {
            return "tmpfs".equals(Files.getFileStore(file).type());
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether the device was closed; any thread. */
    boolean closed() {
        return closed;
    }

    /** true when the O_DIRECT channel is open (tests, metrics). */
    public boolean directIoAvailable() {
        return direct != null;
    }

    /** The alignment O_DIRECT requests must satisfy: the file system block size. */
    public int alignment() {
        return alignment;
    }

    @Override
    public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        if (!inRange(offset, length, done)) {
            return;
        }
        dst.ensureWritable(length);
        submit(IoRequest.READ, offset, length, dst, false, done);
    }

    @Override
    public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
        if (!inRange(offset, src.readableBytes(), done)) {
            return;
        }
        submit(IoRequest.WRITE, offset, src.readableBytes(), src, fua, done);
    }

    @Override
    public void flush(IoCompletion done) {
        submit(IoRequest.FLUSH, 0, 0, null, false, done);
    }

    @Override
    public void unmap(long offset, long length, IoCompletion done) {
        if (!inRange(offset, length, done)) {
            return;
        }
        submit(IoRequest.UNMAP, offset, length, null, false, done);
    }

    /** A block device zeroes in the kernel (BLKZEROOUT: the device's WRITE ZEROES where it has one); a file does not. */
    @Override
    public boolean writeZeroes(long offset, long length, IoCompletion done) {
        if (!blockSpecial) {
            return false;
        }
        if (inRange(offset, length, done)) {
            submit(IoRequest.WRITE_ZEROES, offset, length, null, false, done);
        }
        return true;
    }

    /** A file's allocation and its file system's free space; none for a block device (fully provisioned). */
    @Override
    public MappingResources mappingResources() {
        if (blockSpecial) {
            return null;
        }
        MappingResources r = allocation;
        if (r == null) {
            try {
                r = FileAllocation.of(file, libc, fd, () -> closed);
            } catch (IOException e) {
                LOG.warn(
                        "{}: its file system's free space cannot be read ({}); no provisioning counts",
                        file,
                        e.toString());
            }
            allocation = r;
        }
        return r;
    }

    @Override
    public boolean tracksAllocation() {
        return !blockSpecial;
    }

    @Override
    public boolean isMapped(long offset) {
        if (fd < 0
                || closed
                || blockSpecial) { // a block device has no SEEK_DATA (EINVAL) and does not say what is mapped
            return true;
        }
        return libc.lseek(fd, offset, LibC.SEEK_DATA) == offset;
    }

    @Override
    public long nextMappingChange(long offset) {
        if (fd < 0 || closed || blockSpecial) {
            return size;
        }
        long r = libc.lseek(fd, offset, isMapped(offset) ? LibC.SEEK_HOLE : LibC.SEEK_DATA);
        return r < 0 ? size : Math.min(r, size);
    }

    @Override
    public void close() {
        closed = true;
        io.close();
        try {
            buffered.close();
            if (direct != null) {
                direct.close();
            }
        } catch (IOException e) {
            LOG.warn("{}: close failed: {}", file, e.toString());
        }
        if (fd >= 0) {
            libc.close(fd);
        }
    }

    private boolean inRange(long offset, long length, IoCompletion done) {
        if (!BlockDevice.inRange(offset, length, size)) {
            done.ioComplete(IoStatus.OUT_OF_RANGE);
            return false;
        }
        return true;
    }

    private void submit(int op, long offset, long length, ByteBuf buf, boolean fua, IoCompletion done) {
        if (closed) {
            done.ioComplete(IoStatus.UNAVAILABLE);
            return;
        }
        IoRequest r = requests.take();
        r.op = op;
        r.offset = offset;
        r.length = length;
        r.buf = buf;
        r.fua = fua;
        r.done = done;
        io.execute(r);
    }

    /** Carries out one request with blocking calls; on an executor thread. */
    IoStatus perform(int op, long offset, long length, ByteBuf buf, boolean fua) {
        return channelIo.perform(op, offset, length, buf, fua);
    }

    /** The end of every request, on whichever thread it ended: back to the pool, then the caller's completion. */
    void finish(IoRequest r, IoStatus status) {
        IoCompletion completion = r.done;
        requests.give(r);
        completion.ioComplete(status);
    }

    /** Where this store's buffered copies are recorded; set before the device serves. */
    public void touches(DataTouches recorder) {
        this.touches = Objects.requireNonNull(recorder, "recorder");
    }

    /** A buffered transfer: the kernel copies between the page cache (its node unknown to us) and our buffer. */
    void touchedBuffered(ByteBuf buf, int index, int length) {
        touches.touched(DataTouches.Kind.BACKING, buf, index, length);
        touches.touched(DataTouches.Kind.BACKING, -1, length);
    }
}
