package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * The LUN at bytes 8-15, for the headers that carry one there (SCSI Command, Data-In/Out, R2T, NOP-In/Out,
 * Text, Task Management request, SNACK, Async Message); in the others those bytes are reserved or hold the ISID.
 *
 * @param <T> the concrete header
 */
public interface LunField<T extends BhsFlyweight<T>> {
    ByteBuf buffer();

    default long lun() {
        return Bhs.lun(buffer());
    }

    @SuppressWarnings("unchecked")
    default T lun(long lun) {
        buffer().setLong(Bhs.LUN_OFFSET, lun);
        return (T) this;
    }
}
