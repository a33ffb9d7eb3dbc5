package io.numaiscsi.cache;

import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;

/** The regions and partitions of every node, and which partition and how many bytes a cache block has. */
final class CacheSpace {
  final int blockSize;
  /** Bytes of the device the cache is in front of. */
  final long size;
  final PartitionHash hash;
  final CacheRegion[] regions;
  final CachePartition[] partitions;

  CacheSpace(long size, CacheParameters params, NumaTopology topology, NodeMemory memory, CacheCounters counters,
             SlotIo.Sink slotSink) {
    this.blockSize = params.blockSize();
    this.size = size;
    int nodes = topology.nodeCount();
    this.hash = new PartitionHash(nodes, params.partitionsPerNode(), params.neighbours());
    this.regions = new CacheRegion[nodes];
    this.partitions = new CachePartition[hash.totalPartitions()];
    for (int n = 0; n < nodes; n++) {
      regions[n] = new CacheRegion(n, params, memory, counters, slotSink);
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

  int totalSlots() {
    int n = 0;
    for (CachePartition p : partitions) {
      n += p.slots;
    }
    return n;
  }
}
