package io.numaiscsi.blockdev.backstore;

import io.numaiscsi.blockdev.BlockDevice;

/**
 * Base of the backing stores, the devices that hold the blocks themselves (a file or block device, RAM, none, an RBD
 * image): a logical block size fixed when the store is opened, and a size in bytes the store keeps.
 */
public abstract class BackingStore implements BlockDevice {
    /** Logical block size in bytes, 512 or 4096. */
    protected final int blockSize;

    protected BackingStore(int blockSize) {
        this.blockSize = blockSize;
    }

    /**
     * Refuses a block size other than 512 or 4096, and a size that is not a positive multiple of it.
     *
     * @throws IllegalArgumentException naming the problem
     */
    static void requireGeometry(long sizeBytes, int blockSize) {
        if (blockSize != 512 && blockSize != 4096) {
            throw new IllegalArgumentException("block size must be 512 or 4096: " + blockSize);
        }
        if (sizeBytes <= 0 || sizeBytes % blockSize != 0) {
            throw new IllegalArgumentException("size must be a positive multiple of " + blockSize + ": " + sizeBytes);
        }
    }

    /** Bytes the store serves now. */
    protected abstract long sizeBytes();

    @Override
    public final int blockSize() {
        return blockSize;
    }

    @Override
    public final long blockCount() {
        return sizeBytes() / blockSize;
    }
}
