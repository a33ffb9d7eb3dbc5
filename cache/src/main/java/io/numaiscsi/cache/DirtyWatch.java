package io.numaiscsi.cache;

/**
 * One write-back device's background check, run by the {@link WriteBackFlusher}: a batch when the dirty bytes are
 * above the soft limit or a block has been dirty longer than {@code dirty-expire}. Batches go through
 * {@link WriteBackScheduler#requestWriteback}, so they stay serialized with flushes and unmaps.
 */
final class DirtyWatch implements WriteBackFlusher.Member {
    private final CacheSpace space;
    private final DirtyAccount dirty;
    private final WriteBackScheduler writeBacks;
    private final FillCoordinator fills;
    private final long expireNanos;

    DirtyWatch(CacheSpace space, WriteBackScheduler writeBacks, FillCoordinator fills, long expireNanos) {
        this.space = space;
        this.dirty = space.dirty;
        this.writeBacks = writeBacks;
        this.fills = fills;
        this.expireNanos = expireNanos;
    }

    @Override
    public void tick(long nowNanos) {
        if (dirty.takeThrottled()) {
            // A write that parked on the hard limit is woken by the slots its batch cleans; this catches one that
            // parked just after the last of them (at most once per period, so a write still over the limit does not
            // spin).
            fills.wakeAllParked();
        }
        long bytes = dirty.bytes();
        if (bytes == 0) {
            return;
        }
        if (bytes > dirty.softLimit || space.hasDirtySince(nowNanos - expireNanos)) {
            writeBacks.requestWriteback();
        }
    }
}
