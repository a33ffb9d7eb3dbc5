package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * The Target Transfer Tag at bytes 20-23, for Data-In/Out, R2T, NOP-In/Out, Text and SNACK; 0xffffffff
 * ({@link Bhs#RESERVED_TAG}) where the PDU answers or solicits nothing.
 *
 * @param <T> the concrete header
 */
public interface TransferTagField<T extends BhsFlyweight<T>> {
    ByteBuf buffer();

    default int targetTransferTag() {
        return buffer().getInt(Bhs.TARGET_TRANSFER_TAG_OFFSET);
    }

    @SuppressWarnings("unchecked")
    default T targetTransferTag(int ttt) {
        buffer().setInt(Bhs.TARGET_TRANSFER_TAG_OFFSET, ttt);
        return (T) this;
    }
}
