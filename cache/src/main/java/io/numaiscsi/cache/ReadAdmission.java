package io.numaiscsi.cache;

/**
 * Which read misses may take a slot. A miss on a block that is not cached is read straight through into the caller's
 * buffer unless the block was read through recently (reuse: admitted, and only the piece's granules are filled), the
 * read continues a sequential stream (the whole block is filled: read-ahead), or the piece covers the whole block.
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

  /** Whether a miss on {@code block} (not cached, piece smaller than the block, not sequential) takes a slot. */
  boolean admits(long block) {
    return ghosts.seen(block);
  }

  /** A miss on {@code block} was read through: a second one soon is admitted. */
  void readThrough(long block) {
    ghosts.remember(block);
  }
}
