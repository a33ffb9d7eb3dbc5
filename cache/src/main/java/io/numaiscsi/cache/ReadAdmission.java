package io.numaiscsi.cache;

/**
 * Which read misses may take a slot. A miss on a block that is not cached is read straight through into the caller's
 * buffer unless the block was read through recently (reuse: admitted, and only the piece's granules are filled), the
 * read continues a sequential stream (the whole block is filled: read-ahead), or a random read covers the whole
 * block (filled whole).
 * One per device, shared by its reads.
 */
final class ReadAdmission {
    private final GhostTable ghosts;
    private final StreamTable streams;

    ReadAdmission(GhostTable ghosts, StreamTable streams) {
        this.ghosts = ghosts;
        this.streams = streams;
    }

    /** Records the read [offset, end); true when it starts where a recent read ended. */
    boolean sequential(long offset, long end) {
        return streams.follows(offset, end);
    }

    /**
     * Its partition's lock held: whether a miss on granules [g0, g1) of {@code block}, a block not cached, takes a slot:
     * when those bytes were read through shortly before (reuse); when a sequential stream reads part of the block (the
     * rest is read ahead); when a random read covers it whole (filled as before admission existed); or, unless it is a
     * scan, when its partition is settled ({@link SlotTable#settled}: what it holds fits, so fills stay) and the
     * slot evicts no block in use ({@link SlotTable#roomForNewBlock}). A
     * sequential stream of whole blocks not seen shortly before is a scan: a fill would only add a copy and evict
     * something, so it reads through. Where the slot would evict a block in use, one reuse is not enough: a random small
     * read over a LUN larger than the cache comes back within the window by chance (with 4 KiB reads over 1 GiB and a
     * 256 MiB cache, one miss in 500), and each such admission evicted a block full of valid granules for a slot
     * holding one, so the cache never held more than a few percent of what it could; a piece read through twice in a
     * row within the window is hot.
     */
    boolean fills(SlotTable p, long block, int g0, int g1, boolean whole, boolean sequential) {
        boolean settled = !(whole && sequential) && p.settled(); // counts the miss: asked before anything else
        if (whole != sequential) {
            return true;
        }
        boolean room = p.roomForNewBlock();
        return (settled && room) || ghosts.reads(block, g0, g1) >= (room ? 1 : 2);
    }

    /** A miss on granules [g0, g1) of {@code block} was read through: reading them again soon is admitted. */
    void readThrough(long block, int g0, int g1) {
        ghosts.remember(block, g0, g1);
    }

    /** Granules [g0, g1) of {@code block} are wanted soon (PRE-FETCH): the next read of them is admitted. */
    void wanted(long block, int g0, int g1) {
        ghosts.wanted(block, g0, g1);
    }
}
