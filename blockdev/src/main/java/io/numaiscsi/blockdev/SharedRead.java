package io.numaiscsi.blockdev;

import io.netty.buffer.ByteBuf;

/** Completion of {@link BlockDevice#readShared}. Implemented by reusable per-task objects, like {@link IoCompletion}. */
public interface SharedRead {
    /**
     * {@code data} holds the range's bytes as readable bytes and belongs to the receiver, who releases it; null unless
     * {@code status} is OK. It may lie over the device's own memory, which stays reserved until it is released.
     */
    void sharedReadDone(IoStatus status, ByteBuf data);
}
