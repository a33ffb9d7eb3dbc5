package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Frames outgoing PDUs (RFC 7143 11.1): BHS, AHS, header digest, data segment, padding, data
 * digest. The header part (at most 1072 bytes) is copied into one buffer; the data segment is
 * never copied. Single-threaded (one per connection).
 */
public final class PduEncoder {
    private static final byte[] ZERO_PADDING = new byte[3];

    private final Crc32cDigest crc = new Crc32cDigest();
    private boolean headerDigest;
    private boolean dataDigest;

    public void digests(boolean header, boolean data) {
        headerDigest = header;
        dataDigest = data;
    }

    /**
     * Completes and frames one outgoing PDU. Sets TotalAHSLength and DataSegmentLength in bhs from
     * ahs/data, appends header digest, padding and data digest. Takes ownership of bhs, ahs and data
     * (ahs/data may be null; their readable bytes are sent; bhs is bytes 0..47).
     * Returns a buffer to write to the wire; the data is not copied.
     */
    public ByteBuf encode(ByteBufAllocator alloc, ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
        int ahsLength = ahs == null ? 0 : ahs.readableBytes();
        int dataLength = data == null ? 0 : data.readableBytes();
        ByteBuf header;
        try {
            Bhs.setTotalAhsLength(bhs, ahsLength);
            Bhs.setDataSegmentLength(bhs, dataLength);
            header = alloc.buffer(Bhs.LENGTH + ahsLength + (headerDigest ? 4 : 0));
            header.writeBytes(bhs, 0, Bhs.LENGTH);
            if (ahsLength > 0) {
                header.writeBytes(ahs, ahs.readerIndex(), ahsLength);
            }
        } catch (RuntimeException e) {
            release(bhs, ahs, data);
            throw e;
        }
        release(bhs, ahs, null);
        if (headerDigest) {
            crc.reset();
            crc.update(header, header.readerIndex(), header.readableBytes());
            header.writeIntLE(crc.value());
        }
        if (dataLength == 0) {
            if (data != null) {
                data.release();
            }
            return header;
        }
        int padding = -dataLength & 3;
        int trailerLength = padding + (dataDigest ? 4 : 0);
        CompositeByteBuf out = alloc.compositeBuffer(3);
        out.addComponent(true, header);
        out.addComponent(true, data);
        if (trailerLength > 0) {
            ByteBuf trailer = alloc.buffer(trailerLength, trailerLength);
            trailer.writeBytes(ZERO_PADDING, 0, padding);
            if (dataDigest) {
                crc.reset();
                crc.update(data, data.readerIndex(), dataLength);
                for (int i = 0; i < padding; i++) {
                    crc.updateByte(0);
                }
                trailer.writeIntLE(crc.value());
            }
            out.addComponent(true, trailer);
        }
        return out;
    }

    private static void release(ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
        bhs.release();
        if (ahs != null) {
            ahs.release();
        }
        if (data != null) {
            data.release();
        }
    }
}
