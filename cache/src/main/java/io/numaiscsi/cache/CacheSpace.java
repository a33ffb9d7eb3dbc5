package io.numaiscsi.cache;

import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;

/** The regions and partitions of every node, and which partition and how many bytes a cache block has. */
final class CacheSpace {
  /** The unit of validity inside a cache block, unless the device's logical block is larger. */
  static final int GRANULE = 4096;

  final int blockSize;
  final int granule;
  /** Bytes of the device the cache is in front of. */
  final long size;
  final PartitionHash hash;
  final CacheRegion[] regions;
  final CachePartition[] partitions;

  CacheSpace(long size, int logicalBlock, CacheParameters params, NumaTopology topology, NodeMemory memory,
             CacheCounters counters, SlotIo.Sink slotSink) {
    this.blockSize = params.blockSize();
    this.granule = Math.max(GRANULE, logicalBlock);
    this.size = size;
    int nodes = topology.nodeCount();
    this.hash = new PartitionHash(nodes, params.partitionsPerNode(), params.neighbours());
    this.regions = new CacheRegion[nodes];
    this.partitions = new CachePartition[hash.totalPartitions()];
    for (int n = 0; n < nodes; n++) {
      regions[n] = new CacheRegion(n, params, granule, memory, counters, slotSink);
    }
    for (int p = 0; p < partitions.length; p++) {
      partitions[p] = regions[hash.nodeOfPartition(p)].partitions[hash.indexInNode(p)];
    }
  }

  CachePartition partitionOf(long block) {
    return partitions[hash.partition(block)];
  }

  /** Bytes of this cache block inside the device (the last one may be short). */
  int blockBytes(long block) {
    return (int) Math.min(blockSize, size - block * blockSize);
  }

  /** Granules of this cache block inside the device. */
  int granules(long block) {
    return (blockBytes(block) + granule - 1) / granule;
  }

  int totalSlots() {
    int n = 0;
    for (CachePartition p : partitions) {
      n += p.slots;
    }
    return n;
  }

  int pinnedSlots() {
    int n = 0;
    for (CachePartition p : partitions) {
      p.lock.lock();
      try {
        for (int s = 0; s < p.slots; s++) {
          n += p.pins[s] > 0 ? 1 : 0;
        }
      } finally {
        p.lock.unlock();
      }
    }
    return n;
  }

  /** Slot states per partition: state, m(apped), d(irty), w(riting back), pins. */
  void describe(StringBuilder sb) {
    for (int i = 0; i < partitions.length; i++) {
      CachePartition p = partitions[i];
      p.lock.lock();
      try {
        sb.append("partition ").append(i).append(" free=").append(p.freeCount()).append(" lru=")
            .append(p.lruOrder().length).append(" parked=").append(p.hasParked()).append(" slots:");
        for (int s = 0; s < p.slots; s++) {
          sb.append(' ').append(p.state[s]).append(p.mapped[s] ? "m" : "-").append(p.dirty[s] ? "d" : "")
              .append(p.writeback[s] ? "w" : "").append('/').append(p.pins[s]);
        }
        sb.append('\n');
      } finally {
        p.lock.unlock();
      }
    }
  }
}
