package io.numaiscsi.cache;

/**
 * Which slots of a partition hold data newer than the backing device (write-back), since when, and which of them a
 * write-back batch is writing. Keeps the device's dirty bytes ({@link DirtyAccount}): they change only where a slot's
 * dirty flag flips, here. Its partition's lock held for every call.
 */
final class DirtySlots {
    private final boolean[] dirty;
    /** System.nanoTime() since which the slot's block has been dirty (meaningful while dirty). */
    private final long[] since;

    private final boolean[] writingBack;
    private int count;
    private final DirtyAccount account;

    DirtySlots(int slots, DirtyAccount account) {
        dirty = new boolean[slots];
        since = new long[slots];
        writingBack = new boolean[slots];
        this.account = account;
    }

    boolean is(int s) {
        return dirty[s];
    }

    boolean writingBack(int s) {
        return writingBack[s];
    }

    /**
     * When a new dirty copy replacing slot {@code old} (-1: none) became dirty: a block rewritten again and again keeps
     * its first dirty time, so it still expires; one whose older copy is being written back is dirty from now.
     */
    long sinceFor(int old) {
        return old >= 0 && dirty[old] && !writingBack[old] ? since[old] : System.nanoTime();
    }

    void mark(int s, long dirtySince) {
        if (!dirty[s]) {
            dirty[s] = true;
            count++;
            account.blockDirtied();
        }
        since[s] = dirtySince;
    }

    /** The slot's data is on the backing device, or superseded. */
    void clean(int s) {
        if (dirty[s]) {
            dirty[s] = false;
            count--;
            account.blockCleaned();
        }
    }

    /** Marks slot s as being written back if it is dirty and not already; true when it was marked. */
    boolean beginWriteback(int s) {
        if (!dirty[s] || writingBack[s]) {
            return false;
        }
        writingBack[s] = true;
        return true;
    }

    /** The write-back of slot s finished: clean if it succeeded, else still dirty (for the next batch). */
    void endWriteback(int s, boolean ok) {
        writingBack[s] = false;
        if (ok) {
            clean(s);
        }
    }

    /** Whether a dirty block not being written back has been dirty since {@code cutoff} (System.nanoTime) or before. */
    boolean anySince(long cutoff) {
        if (count == 0) {
            return false;
        }
        for (int s = 0; s < dirty.length; s++) {
            if (dirty[s] && !writingBack[s] && since[s] - cutoff <= 0) {
                return true;
            }
        }
        return false;
    }
}
