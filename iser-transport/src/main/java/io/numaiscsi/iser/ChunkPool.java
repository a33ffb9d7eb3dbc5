package io.numaiscsi.iser;

/**
 * Fixed-size chunks of one registered region ({@code count} chunks of {@code chunkSize} bytes from
 * {@code base}): a stack of free chunk indices, so taking and giving back allocate nothing. Owned by one
 * connection's thread.
 */
final class ChunkPool {
    private final MemoryRegion region;
    private final int base;
    private final int chunkSize;
    private final int[] free;
    private final boolean[] taken;
    private int freeCount;

    ChunkPool(MemoryRegion region, int base, int chunkSize, int count) {
        if (chunkSize <= 0 || count <= 0 || (long) base + (long) chunkSize * count > region.length()) {
            throw new IllegalArgumentException("chunk pool of " + count + " x " + chunkSize + " at " + base
                    + " does not fit a region of " + region.length() + " bytes");
        }
        this.region = region;
        this.base = base;
        this.chunkSize = chunkSize;
        this.free = new int[count];
        this.taken = new boolean[count];
        for (int i = 0; i < count; i++) {
            free[i] = count - 1 - i; // chunk 0 comes out first
        }
        this.freeCount = count;
    }

    /** A free chunk's index, or -1 when all are in use. */
    int take() {
        if (freeCount == 0) {
            return -1;
        }
        int chunk = free[--freeCount];
        taken[chunk] = true;
        return chunk;
    }

    void give(int chunk) {
        if (!taken[chunk]) {
            throw new IllegalStateException("chunk " + chunk + " given back twice");
        }
        taken[chunk] = false;
        free[freeCount++] = chunk;
    }

    /** Byte offset of {@code chunk} in the region. */
    int offset(int chunk) {
        return base + chunk * chunkSize;
    }

    int chunkSize() {
        return chunkSize;
    }

    int capacity() {
        return free.length;
    }

    int available() {
        return freeCount;
    }

    int inUse() {
        return free.length - freeCount;
    }

    MemoryRegion region() {
        return region;
    }
}
