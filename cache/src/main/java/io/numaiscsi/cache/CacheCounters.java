package io.numaiscsi.cache;

import java.util.concurrent.atomic.LongAdder;

/** Per-node evidence for the daemon's metrics. Indexed by node. */
public final class CacheCounters {
  final LongAdder[] hits;
  final LongAdder[] misses;
  final LongAdder[] evictions;
  final LongAdder[] forwards;
  final LongAdder[] bypasses;
  final LongAdder[] inPlaceBytes;
  final LongAdder[] readThroughs;

  CacheCounters(int nodes) {
    hits = adders(nodes);
    misses = adders(nodes);
    evictions = adders(nodes);
    forwards = adders(nodes);
    bypasses = adders(nodes);
    inPlaceBytes = adders(nodes);
    readThroughs = adders(nodes);
  }

  /** A miss on node {@code node} read through (a miss and a read-through). */
  void readThrough(int node) {
    misses[node].increment();
    readThroughs[node].increment();
  }

  private static LongAdder[] adders(int n) {
    LongAdder[] a = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  /**
   * Counts per node (where the bytes were touched is {@code DataTouches}' business): hits and misses (blocks looked up in that node's partitions; a read waiting
   * on a block another request is filling counts as a miss), evictions, requests forwarded
   * to that node, and misses served straight from the backing device because every block of the
   * partition was pinned (bypasses), and bytes of that node's blocks handed to a transport in place, without a
   * copy (a shared read: iSER's RDMA Write from the registered cache region, or a large read sent over TCP), and
   * misses read straight from the backing device into the caller's buffer because the admission policy gave them no
   * slot (read-throughs; each is also counted in misses).
   */
  public record Snapshot(long[] hits, long[] misses, long[] evictions, long[] forwards, long[] bypasses, long[] inPlaceBytes, long[] readThroughs) {
    public long total(long[] perNode) {
      long t = 0;
      for (long v : perNode) {
        t += v;
      }
      return t;
    }
  }

  public Snapshot snapshot() {
    return new Snapshot(sum(hits), sum(misses), sum(evictions), sum(forwards),
        sum(bypasses), sum(inPlaceBytes), sum(readThroughs));
  }

  private static long[] sum(LongAdder[] a) {
    long[] out = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i].sum();
    }
    return out;
  }
}
