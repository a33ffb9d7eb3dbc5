package io.numaiscsi.cache;

import io.numaiscsi.numa.NodeMemory;
import java.nio.ByteBuffer;

/** One node's cache memory, allocated up front on that node and split into independent partitions. */
final class CacheRegion {
  final int node;
  final CachePartition[] partitions;
  final ByteBuffer[] memory;

  CacheRegion(int node, CacheParameters params, int granule, NodeMemory nodeMemory, CacheCounters counters,
              SlotIo.Sink slotSink, DirtyAccount dirty) {
    this.node = node;
    int count = params.partitionsPerNode();
    int slots = params.slotsPerPartition();
    partitions = new CachePartition[count];
    memory = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      memory[i] = nodeMemory.allocate(node, slots * params.blockSize());
      partitions[i] = new CachePartition(node, memory[i], slots, params.blockSize(), granule, counters, slotSink,
          dirty);
    }
  }

  void free(NodeMemory nodeMemory) {
    for (ByteBuffer b : memory) {
      nodeMemory.free(b);
    }
  }
}
