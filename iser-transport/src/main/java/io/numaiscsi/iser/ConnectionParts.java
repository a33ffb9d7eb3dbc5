package io.numaiscsi.iser;

/**
 * What the two posting sides of one connection, its {@link IserSender} and its {@link RdmaDataMover}, share: the queue
 * pair, the registered slab and its staging chunks, the send queue's accounting, the lifecycle, the tasks' STags, the
 * held cache blocks, the counters and the touch recording.
 */
record ConnectionParts(
        RdmaEndpoint endpoint,
        MemoryRegion region,
        ChunkPool data,
        SendQueue sq,
        IserLifecycle lifecycle,
        TaskTable tasks,
        HeldBuffers holds,
        IserCounters counters,
        IserTouches touches) {}
