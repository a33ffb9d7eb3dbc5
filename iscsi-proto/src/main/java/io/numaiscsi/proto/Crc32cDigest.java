package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** A reusable CRC32C accumulator over ByteBufs (JDK intrinsic). One per codec; not thread-safe. */
final class Crc32cDigest {
    private final CRC32C crc = new CRC32C();

    void reset() {
        crc.reset();
    }

    void update(ByteBuf buf, int index, int length) {
        if (length == 0) {
            return;
        }
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf.nioBufferCount() == 1) {
            // nioBuffer, not internalNioBuffer: slices of one receive buffer may be read by other threads.
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                crc.update(part);
            }
        }
    }

    void updateByte(int b) {
        crc.update(b);
    }

    int value() {
        return (int) crc.getValue();
    }
}
