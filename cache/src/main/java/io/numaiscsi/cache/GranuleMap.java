package io.numaiscsi.cache;

/**
 * A set of 4 KiB granules per slot of a partition (those holding valid data, or those newer than the backing device):
 * one flat bit array, a fixed number of words per slot, no object per slot. Partition lock held for every call.
 */
final class GranuleMap {
    private final int wordsPerSlot;
    private final long[] bits;

    GranuleMap(int slots, int granulesPerBlock) {
        this.wordsPerSlot = (granulesPerBlock + 63) >>> 6;
        this.bits = new long[slots * wordsPerSlot];
    }

    void clear(int s) {
        int w = s * wordsPerSlot;
        for (int i = 0; i < wordsPerSlot; i++) {
            bits[w + i] = 0;
        }
    }

    /** Unmarks granules [from, to) of slot s. */
    void clear(int s, int from, int to) {
        int w = s * wordsPerSlot;
        for (int g = from; g < to; g++) {
            bits[w + (g >>> 6)] &= ~(1L << g);
        }
    }

    /** Marks granules [from, to) of slot s. */
    void mark(int s, int from, int to) {
        int w = s * wordsPerSlot;
        for (int g = from; g < to; g++) {
            bits[w + (g >>> 6)] |= 1L << g;
        }
    }

    /** Whether granules [from, to) of slot s are all marked. */
    boolean covers(int s, int from, int to) {
        int w = s * wordsPerSlot;
        for (int g = from; g < to; g++) {
            if ((bits[w + (g >>> 6)] & (1L << g)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The first granule of [from, to) of slot s that is not marked, or {@code to} when all are. */
    int firstUnmarked(int s, int from, int to) {
        int w = s * wordsPerSlot;
        for (int g = from; g < to; g++) {
            if ((bits[w + (g >>> 6)] & (1L << g)) == 0) {
                return g;
            }
        }
        return to;
    }

    /** The first granule of [from, to) of slot s that is marked, or {@code to} when none is. */
    int firstMarked(int s, int from, int to) {
        int w = s * wordsPerSlot;
        for (int g = from; g < to; g++) {
            if ((bits[w + (g >>> 6)] & (1L << g)) != 0) {
                return g;
            }
        }
        return to;
    }

    /**
     * The first run of marked granules of slot s within [from, to), packed as {@code first << 32 | end}, or -1 when
     * none is marked there.
     */
    long firstRun(int s, int from, int to) {
        int first = firstMarked(s, from, to);
        if (first == to) {
            return -1;
        }
        return (long) first << 32 | firstUnmarked(s, first, to);
    }

    /** How many granules of slot s are marked. */
    int count(int s) {
        int w = s * wordsPerSlot;
        int n = 0;
        for (int i = 0; i < wordsPerSlot; i++) {
            n += Long.bitCount(bits[w + i]);
        }
        return n;
    }

    /** Gives slot {@code to} exactly the marked granules of slot {@code from}. */
    void copy(int from, int to) {
        System.arraycopy(bits, from * wordsPerSlot, bits, to * wordsPerSlot, wordsPerSlot);
    }

    /** One past the last granule of [from, to) of slot s that is not marked, or {@code from} when all are. */
    int unmarkedEnd(int s, int from, int to) {
        int w = s * wordsPerSlot;
        for (int g = to - 1; g >= from; g--) {
            if ((bits[w + (g >>> 6)] & (1L << g)) == 0) {
                return g + 1;
            }
        }
        return from;
    }
}
