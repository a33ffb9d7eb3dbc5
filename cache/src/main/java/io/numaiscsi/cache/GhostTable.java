package io.numaiscsi.cache;

/**
 * Blocks recently read through without taking a slot, remembered so a second miss on one of them soon after is
 * admitted. "Soon" is a reuse distance: at most {@code window} read-throughs later (about the cache's slot count: a
 * block coming back later than that would have been evicted again before its next use, so filling it never pays,
 * as for a scan larger than the cache). Direct mapped by block hash; a newer block overwrites an older one. Updates
 * are racy on purpose: a lost or stale entry only changes whether one miss is admitted, never which bytes a read
 * returns.
 */
final class GhostTable {
  private final long[] blocks;
  private final long[] stamps;
  private final int shift;
  private final long window;
  /** Read-throughs so far (racy). */
  private long clock;

  /** {@code size} is rounded up to a power of two. */
  GhostTable(int size, long window) {
    int n = Integer.highestOneBit(Math.max(2, size - 1)) << 1;
    blocks = new long[n];
    stamps = new long[n];
    shift = 64 - Integer.numberOfTrailingZeros(n);
    this.window = window;
  }

  static GhostTable forSlots(int totalSlots) {
    return new GhostTable(Math.min(1 << 16, Math.max(1024, 2 * totalSlots)), totalSlots);
  }

  private int index(long block) {
    return (int) ((block * 0x9E3779B97F4A7C15L) >>> shift);
  }

  /** Stored as block + 1 so that an empty entry (0) never matches. */
  boolean seen(long block) {
    int i = index(block);
    return blocks[i] == block + 1 && clock - stamps[i] <= window;
  }

  void remember(long block) {
    int i = index(block);
    blocks[i] = block + 1;
    stamps[i] = ++clock;
  }
}
