package io.numaiscsi.blockdev;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;

/**
 * The backend contract, as small as LIO's exec_cmd_ops. Offsets and lengths are in bytes and are
 * always multiples of {@link #blockSize()}. Completion may run on any thread; a device must not
 * change the reader/writer indexes of a write's {@code src} and must not release buffers it is given.
 */
public interface BlockDevice extends AutoCloseable {
    /** Logical block size in bytes: 512 or 4096. */
    int blockSize();

    long blockCount();

    /**
     * Grows the device to {@code newBlockCount} blocks while it serves: the blocks it had keep their data, the new ones
     * read as zeros, and once this returns requests up to the new end are in range ({@link #blockCount()} says so).
     * Devices only grow: shrinking would cut off data an initiator wrote. One resize at a time; I/O may be in flight.
     *
     * @throws UnsupportedOperationException a device that cannot grow (the default)
     * @throws IllegalArgumentException {@code newBlockCount} is not more than {@link #blockCount()}
     * @throws IOException the store could not grow; nothing changed
     */
    default void resize(long newBlockCount) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be resized");
    }

    /** For {@link #resize}: refuses a block count that would not grow {@code device}. */
    static void requireGrowth(BlockDevice device, long newBlockCount) {
        long now = device.blockCount();
        if (newBlockCount <= now) {
            throw new IllegalArgumentException(newBlockCount + " blocks would not grow a device of " + now
                    + " blocks (devices only grow: shrinking would cut off data)");
        }
    }

    /** Whether bytes [offset, offset + length) lie within a device of {@code size} bytes (overflow-safe). */
    static boolean inRange(long offset, long length, long size) {
        return offset >= 0 && length >= 0 && offset <= size && length <= size - offset;
    }

    /** Appends {@code length} bytes at {@code dst.writerIndex()} and advances it. */
    void read(long offset, int length, ByteBuf dst, IoCompletion done);

    /**
     * Reads without a copy where the device keeps the bytes in memory of its own (a cache): {@code done} receives a
     * buffer over that memory, which stays reserved (its blocks pinned) until the receiver releases it, so a transport
     * can send straight from it (an RDMA Write from a registered cache region). {@code alloc} serves the parts the
     * device has to copy after all. Returns false, calling nothing, when the device has no memory of its own; the
     * caller then uses {@link #read}.
     */
    default boolean readShared(long offset, int length, ByteBufAllocator alloc, SharedRead done) {
        return false;
    }

    /** Writes src's readable bytes at offset; fua: durable before done. */
    void write(long offset, ByteBuf src, boolean fua, IoCompletion done);

    /** Everything acknowledged so far becomes durable. */
    void flush(IoCompletion done);

    /** Later reads of the range return zeros. */
    void unmap(long offset, long length, IoCompletion done);

    /**
     * Writes zeros over the range, keeping it mapped, when the device has a faster way than being sent a zero pattern
     * (a block device's write-zeroes offload); returns false, having done nothing, when it has none.
     */
    default boolean writeZeroes(long offset, long length, IoCompletion done) {
        return false;
    }

    /**
     * Bytes one PRE-FETCH may bring into the device's own cache: 0 for a device without one (the default), where
     * PRE-FETCH has nothing to do.
     */
    default long prefetchLimit() {
        return 0;
    }

    /**
     * Reads [offset, offset + length) into the device's own cache ({@code length} at most {@link #prefetchLimit()});
     * {@code done} is called once it is there. A device without a cache completes at once.
     */
    default void prefetch(long offset, long length, IoCompletion done) {
        done.ioComplete(IoStatus.OK);
    }

    /**
     * Whether {@link #isMapped} tells deallocated blocks from mapped ones. A block device does not (every block reads as
     * mapped), so nothing can show it was erased: SANITIZE BLOCK ERASE is not offered there.
     */
    default boolean tracksAllocation() {
        return true;
    }

    /** For GET LBA STATUS: is the block at this byte offset allocated. */
    boolean isMapped(long offset);

    /** First byte offset >= offset whose mapped state differs from offset's, or the device size. */
    long nextMappingChange(long offset);

    /**
     * The store's LBA mapping resources (used and free space), or null when it does not report them: a fully provisioned
     * store (a block device) or one without a notion of space (the null store). The default is null.
     */
    default MappingResources mappingResources() {
        return null;
    }

    /** Granularity of mapping and atomic media writes; reported as logical blocks per physical block. */
    default int physicalBlockSize() {
        return blockSize();
    }

    @Override
    void close();
}
