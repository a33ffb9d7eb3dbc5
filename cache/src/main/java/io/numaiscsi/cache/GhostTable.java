package io.numaiscsi.cache;

/**
 * Blocks recently read through without taking a slot, remembered so a second miss on one of them is admitted. Direct
 * mapped by block hash; a newer block simply overwrites an older one. Updates are racy on purpose: a lost or stale
 * entry only changes whether one miss is admitted, never which bytes a read returns.
 */
final class GhostTable {
  private final long[] entries;
  private final int shift;

  /** {@code size} is rounded up to a power of two. */
  GhostTable(int size) {
    int n = Integer.highestOneBit(Math.max(2, size - 1)) << 1;
    entries = new long[n];
    shift = 64 - Integer.numberOfTrailingZeros(n);
  }

  static GhostTable forSlots(int totalSlots) {
    return new GhostTable(Math.min(1 << 16, Math.max(1024, 2 * totalSlots)));
  }

  private int index(long block) {
    return (int) ((block * 0x9E3779B97F4A7C15L) >>> shift);
  }

  /** Stored as block + 1 so that an empty entry (0) never matches. */
  boolean seen(long block) {
    return entries[index(block)] == block + 1;
  }

  void remember(long block) {
    entries[index(block)] = block + 1;
  }
}
