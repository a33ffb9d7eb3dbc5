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
   * Lock of {@code p} held: whether a miss on granules [g0, g1) of {@code block}, whose bytes are not cached, fills:
   * when those bytes were read through shortly before (reuse); when a sequential stream reads part of the block (the
   * rest is read ahead); when a random read covers it whole (filled as before admission existed); or, unless it is a
   * scan, when its partition is settled ({@link CachePartition#settled}: what it holds fits, so fills stay). A
   * sequential stream of whole blocks not seen shortly before is a scan: a fill would only add a copy and evict
   * something, so it reads through.
   */
  boolean fills(CachePartition p, long block, int g0, int g1, boolean whole, boolean sequential) {
    return !(whole && sequential) && p.settled() || whole != sequential || ghosts.seen(block, g0, g1);
  }

  /** A miss on granules [g0, g1) of {@code block} was read through: reading them again soon is admitted. */
  void readThrough(long block, int g0, int g1) {
    ghosts.remember(block, g0, g1);
  }
}
