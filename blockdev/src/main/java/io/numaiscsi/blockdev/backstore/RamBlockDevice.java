package io.numaiscsi.blockdev.backstore;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.MappingResources;
import io.numaiscsi.numa.DataTouches;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A sparse in-memory disk: 1 MiB chunks allocated on first write from its {@link ChunkMemory}, dropped when unmap
 * leaves no block of them mapped (if that memory is reclaimable). Mapping is tracked per logical block, so GET LBA
 * STATUS is exact. Completes inline; its copies are recorded in its {@link DataTouches}.
 */
public final class RamBlockDevice extends BackingStore {
    static final int CHUNK_SIZE = 1 << 20;

    private final long size;
    private final int blocksPerChunk;
    private final AtomicReferenceArray<Chunk> chunks;
    private final ChunkMemory memory;
    private final DataTouches touches;
    private volatile boolean closed;

    /** Chunk data plus a bitmap of its mapped blocks; bitmap and liveness are guarded by the chunk. */
    private static final class Chunk {
        final ByteBuf data;
        final long[] mapped;
        int mappedCount;
        boolean dead;

        Chunk(ByteBuf data, int blocks) {
            this.data = data;
            mapped = new long[(blocks + 63) >>> 6];
        }
    }

    public RamBlockDevice(long sizeBytes, int blockSize) {
        this(sizeBytes, blockSize, ChunkMemory.HEAP, DataTouches.singleNode());
    }

    public RamBlockDevice(long sizeBytes, int blockSize, ChunkMemory memory, DataTouches touches) {
        super(blockSize);
        requireGeometry(sizeBytes, blockSize);
        long chunkCount = (sizeBytes + CHUNK_SIZE - 1) / CHUNK_SIZE;
        if (chunkCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("RAM disk too large: " + sizeBytes);
        }
        this.size = sizeBytes;
        this.blocksPerChunk = CHUNK_SIZE / blockSize;
        this.chunks = new AtomicReferenceArray<>((int) chunkCount);
        this.memory = memory;
        this.touches = touches;
    }

    /**
     * Used: the 1 MiB chunks allocated now (the memory the disk really holds); free: the rest of its size. The node's
     * memory other units share is not counted, so the free count is the unit's own.
     */
    @Override
    public MappingResources mappingResources() {
        return new MappingResources() {
            @Override
            public long usedBytes() {
                return allocatedChunks() * (long) CHUNK_SIZE;
            }

            @Override
            public long freeBytes() {
                return Math.max(0, size - usedBytes());
            }

            @Override
            public boolean freeShared() {
                return false;
            }
        };
    }

    /** Live chunks; a walk over the chunk table, for the provisioning check (seconds apart), not the data path. */
    long allocatedChunks() {
        long n = 0;
        for (int i = 0; i < chunks.length(); i++) {
            if (chunks.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    @Override
    protected long sizeBytes() {
        return size;
    }

    /**
     * Refused: the chunk table and the last chunk are sized when the disk is created, and the I/O paths use them without
     * a lock, so they cannot be replaced by larger ones while the disk serves.
     */
    @Override
    public void resize(long newBlockCount) {
        throw new UnsupportedOperationException("a RAM disk cannot grow: its memory layout is fixed when it is created"
                + " (use backing: file for a LUN that is to grow)");
    }

    /** Refuses, completing {@code done}, a request to a closed disk or beyond its end; false: it may go on. */
    private boolean refused(long offset, long length, IoCompletion done) {
        if (closed || !BlockDevice.inRange(offset, length, size)) {
            done.ioComplete(closed ? IoStatus.UNAVAILABLE : IoStatus.OUT_OF_RANGE);
            return true;
        }
        return false;
    }

    /**
     * How many bytes of [pos, end) lie in the chunk holding {@code pos}: a request is walked chunk by chunk with plain
     * loops (no callback object per request on this path).
     */
    private static int pieceLength(long pos, long end) {
        return (int) Math.min(end - pos, CHUNK_SIZE - pos % CHUNK_SIZE);
    }

    @Override
    public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        if (refused(offset, length, done)) {
            return;
        }
        long end = offset + length;
        for (long pos = offset; pos < end; pos += pieceLength(pos, end)) {
            int n = pieceLength(pos, end);
            int within = (int) (pos % CHUNK_SIZE);
            Chunk c = chunks.get((int) (pos / CHUNK_SIZE));
            int at = dst.writerIndex();
            if (c == null) {
                dst.writeZero(n);
            } else {
                dst.writeBytes(c.data, within, n);
                touches.touched(DataTouches.Kind.BACKING, c.data, within, n);
            }
            touches.touched(DataTouches.Kind.BACKING, dst, at, n);
        }
        done.ioComplete(IoStatus.OK);
    }

    @Override
    public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
        int length = src.readableBytes();
        if (refused(offset, length, done)) {
            return;
        }
        int from = src.readerIndex();
        long end = offset + length;
        for (long pos = offset; pos < end; pos += pieceLength(pos, end)) {
            int n = pieceLength(pos, end);
            int within = (int) (pos % CHUNK_SIZE);
            Chunk c = mappedChunk((int) (pos / CHUNK_SIZE), within, n);
            int at = from + (int) (pos - offset);
            src.getBytes(at, c.data, within, n);
            touches.touched(DataTouches.Kind.BACKING, src, at, n);
            touches.touched(DataTouches.Kind.BACKING, c.data, within, n);
        }
        done.ioComplete(IoStatus.OK);
    }

    /** The live chunk with blocks [within, within+n) marked mapped before any data is copied in. */
    private Chunk mappedChunk(int index, int within, int n) {
        while (true) {
            Chunk c = chunks.get(index);
            if (c == null) {
                int bytes = (int) Math.min(CHUNK_SIZE, size - (long) index * CHUNK_SIZE);
                Chunk fresh = new Chunk(memory.allocate(bytes), blocksPerChunk);
                if (chunks.compareAndSet(index, null, fresh)) {
                    c = fresh;
                } else {
                    memory.free(fresh.data);
                    c = chunks.get(index);
                }
                if (c == null) {
                    continue;
                }
            }
            synchronized (c) {
                if (c.dead) {
                    continue;
                }
                for (int b = within / blockSize, last = (within + n - 1) / blockSize; b <= last; b++) {
                    long bit = 1L << b;
                    if ((c.mapped[b >>> 6] & bit) == 0) {
                        c.mapped[b >>> 6] |= bit;
                        c.mappedCount++;
                    }
                }
                return c;
            }
        }
    }

    @Override
    public void flush(IoCompletion done) {
        done.ioComplete(closed ? IoStatus.UNAVAILABLE : IoStatus.OK);
    }

    @Override
    public void unmap(long offset, long length, IoCompletion done) {
        if (refused(offset, length, done)) {
            return;
        }
        long end = offset + length;
        for (long pos = offset; pos < end; pos += pieceLength(pos, end)) {
            int index = (int) (pos / CHUNK_SIZE);
            Chunk c = chunks.get(index);
            if (c != null) {
                unmapIn(index, c, (int) (pos % CHUNK_SIZE), pieceLength(pos, end));
            }
        }
        done.ioComplete(IoStatus.OK);
    }

    /** Zeroes bytes [within, within + n) of chunk {@code index} and frees the chunk when none of it stays mapped. */
    private void unmapIn(int index, Chunk c, int within, int n) {
        synchronized (c) {
            c.data.setZero(within, Math.min(c.data.capacity(), within + n) - within);
            for (int b = within / blockSize, last = (within + n - 1) / blockSize; b <= last; b++) {
                long bit = 1L << b;
                if ((c.mapped[b >>> 6] & bit) != 0) {
                    c.mapped[b >>> 6] &= ~bit;
                    c.mappedCount--;
                }
            }
            if (c.mappedCount == 0 && memory.reclaimable()) {
                c.dead = true;
                chunks.compareAndSet(index, c, null);
                memory.free(c.data);
            }
        }
    }

    @Override
    public boolean isMapped(long offset) {
        if (offset < 0 || offset >= size) {
            return false;
        }
        Chunk c = chunks.get((int) (offset / CHUNK_SIZE));
        if (c == null) {
            return false;
        }
        int b = (int) (offset % CHUNK_SIZE) / blockSize;
        synchronized (c) {
            return !c.dead && (c.mapped[b >>> 6] & 1L << b) != 0;
        }
    }

    @Override
    public long nextMappingChange(long offset) {
        long pos = Math.max(0, offset - offset % blockSize);
        boolean state = isMapped(pos);
        while (pos < size) {
            int index = (int) (pos / CHUNK_SIZE);
            long chunkEnd = Math.min(size, (long) (index + 1) * CHUNK_SIZE);
            Chunk c = chunks.get(index);
            if (c == null) {
                if (state) {
                    return pos;
                }
                pos = chunkEnd;
                continue;
            }
            synchronized (c) {
                for (; pos < chunkEnd; pos += blockSize) {
                    int b = (int) (pos % CHUNK_SIZE) / blockSize;
                    boolean mapped = !c.dead && (c.mapped[b >>> 6] & 1L << b) != 0;
                    if (mapped != state) {
                        return pos;
                    }
                }
            }
        }
        return size;
    }

    /** Bytes of chunk memory currently allocated (for tests and metrics). */
    public long allocatedBytes() {
        long total = 0;
        for (int i = 0; i < chunks.length(); i++) {
            Chunk c = chunks.get(i);
            if (c != null && c.mappedCount > 0) {
                total += c.data.capacity();
            }
        }
        return total;
    }

    @Override
    public void close() {
        closed = true;
        for (int i = 0; i < chunks.length(); i++) {
            Chunk c = chunks.getAndSet(i, null);
            if (c != null && !memory.reclaimable()) {
                memory.free(c.data);
            }
        }
    }
}
