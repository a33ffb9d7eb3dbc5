package io.numaiscsi.cache;

import io.numaiscsi.blockdev.IoStatus;

/**
 * Hands slot completions to the fill coordinator or the write-back scheduler. Bound once, right after the
 * partitions exist: the slots are made with the partitions, before the two that consume their completions.
 */
final class SlotCompletions implements SlotIo.Sink {
    private FillCoordinator fills;
    private WriteBackScheduler writeBacks;

    void bind(FillCoordinator fills, WriteBackScheduler writeBacks) {
        this.fills = fills;
        this.writeBacks = writeBacks;
    }

    @Override
    public void fillDone(SlotIo io, IoStatus status) {
        fills.fillDone(io, status);
    }

    @Override
    public void writebackDone(SlotIo io, IoStatus status) {
        writeBacks.writebackDone(io, status);
    }
}
