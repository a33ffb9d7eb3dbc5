package io.numaiscsi.cache;

import java.util.Arrays;

/**
 * Where the last few reads of a device ended, to tell a sequential read (one starting where an earlier one ended) from
 * a random one; a few entries so several interleaved streams are each recognised. Racy on purpose, like
 * {@link GhostTable}: a wrong answer only changes how much a miss fills.
 */
final class StreamTable {
    private static final int ENTRIES = 8;
    private final long[] ends = new long[ENTRIES];
    private int next;

    StreamTable() {
        Arrays.fill(ends, -1);
    }

    /** Records a read of [offset, end); true if it continues one of the recent reads. */
    boolean follows(long offset, long end) {
        for (int i = 0; i < ENTRIES; i++) {
            if (ends[i] == offset) {
                ends[i] = end;
                return true;
            }
        }
        int i = next;
        next = (i + 1) & (ENTRIES - 1);
        ends[i] = end;
        return false;
    }
}
