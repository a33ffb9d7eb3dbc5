package io.numaiscsi.cache;

/**
 * Which slots of a partition hold data newer than the backing device (write-back), which of their granules are newer
 * (written since the block was last clean: what its write-back writes), since when, and which of them a write-back
 * batch is writing. Keeps the device's dirty bytes ({@link DirtyAccount}): the newer granules of each dirty slot,
 * changed only here. Its partition's lock held for every call.
 */
final class DirtySlots {
    private final boolean[] dirty;
    /** System.nanoTime() since which the slot's block has been dirty (meaningful while dirty). */
    private final long[] since;

    private final boolean[] writingBack;
    /**
     * The granules of each slot newer than the backing device: a subset of its valid granules. A dirty slot counts
     * them in the account; they change only while it is dirty (or, before it is, by {@link #inherit}).
     */
    private final GranuleMap newer;

    private int count;
    private final DirtyAccount account;
    private final int granule;

    DirtySlots(int slots, DirtyAccount account, int granulesPerBlock, int granule) {
        dirty = new boolean[slots];
        since = new long[slots];
        writingBack = new boolean[slots];
        newer = new GranuleMap(slots, granulesPerBlock);
        this.account = account;
        this.granule = granule;
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

    /** Granules [g0, g1) of slot s were written: newer than the backing device, the slot dirty from {@code dirtySince}. */
    void mark(int s, long dirtySince, int g0, int g1) {
        int counted = dirty[s] ? newer.count(s) : 0;
        newer.mark(s, g0, g1);
        account.dirtied((long) (newer.count(s) - counted) * granule);
        if (!dirty[s]) {
            dirty[s] = true;
            count++;
        }
        since[s] = dirtySince;
    }

    /** Granules [g0, g1) of slot s were written in place: dirty since it was, or from now if it was clean. */
    void add(int s, int g0, int g1) {
        mark(s, dirty[s] ? since[s] : System.nanoTime(), g0, g1);
    }

    /**
     * A copy of slot {@code base} (reserved, not yet marked) takes over the granules of it that are newer than the
     * backing device: the copy replaces it, and a write-back of the base in flight may fail.
     */
    void inherit(int base, int s) {
        newer.copy(base, s);
    }

    /**
     * The first run of granules of slot s within [g0, g1) newer than the backing device, packed as {@code from << 32 |
     * to}, or -1 when there is none.
     */
    long newerRun(int s, int g0, int g1) {
        return newer.firstRun(s, g0, g1);
    }

    /**
     * The slot's data is on the backing device, or superseded (a copy took over its newer granules). A slot being
     * written back keeps its newer granules until that ends: the batch writes them, since it may be the only one
     * writing what a flush waiting on it covers.
     */
    void clean(int s) {
        if (dirty[s]) {
            dirty[s] = false;
            count--;
            account.cleaned((long) newer.count(s) * granule);
        }
        if (!writingBack[s]) {
            newer.clear(s);
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

    /**
     * The write-back of slot s finished: clean if it succeeded, else still dirty (for the next batch) unless it was
     * superseded meanwhile.
     */
    void endWriteback(int s, boolean ok) {
        writingBack[s] = false;
        if (ok || !dirty[s]) {
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
