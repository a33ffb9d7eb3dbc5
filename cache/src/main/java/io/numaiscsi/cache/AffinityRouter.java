package io.numaiscsi.cache;

/**
 * Closest affinity: a request is split at cache-block boundaries, the bytes per node summed, and
 * the node holding most of them serves it (ties go to the node it arrived on, then the lowest).
 * Requests under the threshold are served where they arrive. Stateless and allocation-free: the
 * sums are taken per node over the request's partition groups (a handful per request).
 */
public final class AffinityRouter {
  private final PartitionHash hash;
  private final int blockSize;
  private final int threshold;
  private final long groupBytes;

  public AffinityRouter(PartitionHash hash, int blockSize, int threshold) {
    this.hash = hash;
    this.blockSize = blockSize;
    this.threshold = threshold;
    this.groupBytes = (long) blockSize * hash.neighbours();
  }

  /** true when the request is large enough to be routed. */
  public boolean routes(int length) {
    return length >= threshold && hash.nodes() > 1;
  }

  /** The node that should serve {@code [offset, offset+length)} arriving on {@code arrivalNode}. */
  public int route(long offset, long length, int arrivalNode) {
    if (length < threshold || hash.nodes() == 1) {
      return arrivalNode;
    }
    int best = arrivalNode;
    long bestBytes = bytesOnNode(offset, length, arrivalNode);
    for (int n = 0; n < hash.nodes(); n++) {
      if (n == arrivalNode) {
        continue;
      }
      long b = bytesOnNode(offset, length, n);
      if (b > bestBytes) {
        best = n;
        bestBytes = b;
      }
    }
    return best;
  }

  /** Bytes of the request whose cache blocks belong to {@code node}. */
  public long bytesOnNode(long offset, long length, int node) {
    long total = 0;
    long pos = offset;
    long end = offset + length;
    while (pos < end) {
      long groupEnd = (pos / groupBytes + 1) * groupBytes;
      long n = Math.min(end, groupEnd) - pos;
      if (hash.nodeOfBlock(pos / blockSize) == node) {
        total += n;
      }
      pos += n;
    }
    return total;
  }

  public int threshold() {
    return threshold;
  }
}
