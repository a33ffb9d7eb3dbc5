package io.numaiscsi.cache;

import io.numaiscsi.blockdev.IoStatus;

/** A request waiting on a slot's fill; it holds a pin on the slot while it waits. */
interface FillWaiter {
    /** The filled block is ready (or failed); called outside the partition lock. */
    void blockReady(IoStatus status);
}
