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

    /** Where {@link #encodeTo} puts a PDU's framed parts, in wire order. */
    @FunctionalInterface
    public interface Parts {
        void part(ByteBuf buffer);
    }

    /**
     * Completes and frames one outgoing PDU. Sets TotalAHSLength and DataSegmentLength in bhs from
     * ahs/data, appends header digest, padding and data digest. Takes ownership of bhs, ahs and data
     * (ahs/data may be null; their readable bytes are sent; bhs is bytes 0..47).
     * Returns one buffer to write to the wire (a composite when there is data); the data is not copied.
     */
    public ByteBuf encode(ByteBufAllocator alloc, ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
        ByteBuf header = header(alloc, bhs, ahs, data);
        if (!hasSegment(data)) {
            return header;
        }
        ByteBuf trailer = trailer(alloc, header, data);
        CompositeByteBuf out = alloc.compositeBuffer(3);
        out.addComponent(true, header);
        out.addComponent(true, data);
        if (trailer != null) {
            out.addComponent(true, trailer);
        }
        return out;
    }

    /**
     * {@link #encode}, but the header, the data segment and the padding/digest trailer go to {@code out} as separate
     * buffers. A socket writes them with one gathering write all the same, and no composite buffer (nor the NIO
     * buffer views a transport takes of one) is allocated per PDU.
     */
    public void encodeTo(ByteBufAllocator alloc, ByteBuf bhs, ByteBuf ahs, ByteBuf data, Parts out) {
        ByteBuf header = header(alloc, bhs, ahs, data);
        if (!hasSegment(data)) {
            out.part(header);
            return;
        }
        ByteBuf trailer = trailer(alloc, header, data);
        out.part(header);
        out.part(data);
        if (trailer != null) {
            out.part(trailer);
        }
    }

    /** Whether there is a data segment to send; an empty one is released here. */
    private static boolean hasSegment(ByteBuf data) {
        if (data == null) {
            return false;
        }
        if (data.isReadable()) {
            return true;
        }
        data.release();
        return false;
    }

    /** BHS, AHS and header digest in one buffer; bhs and ahs are released, data only when this fails. */
    private ByteBuf header(ByteBufAllocator alloc, ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
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
        return header;
    }

    /**
     * Padding to 4 bytes and the data digest after a data segment, or null when there is neither. When this fails,
     * header and data are released: the caller has not handed them on yet.
     */
    private ByteBuf trailer(ByteBufAllocator alloc, ByteBuf header, ByteBuf data) {
        int dataLength = data.readableBytes();
        int padding = -dataLength & 3;
        int trailerLength = padding + (dataDigest ? 4 : 0);
        if (trailerLength == 0) {
            return null;
        }
        ByteBuf trailer;
        try {
            trailer = alloc.buffer(trailerLength, trailerLength);
        } catch (RuntimeException e) {
            header.release();
            data.release();
            throw e;
        }
        trailer.writeBytes(ZERO_PADDING, 0, padding);
        if (dataDigest) {
            crc.reset();
            crc.update(data, data.readerIndex(), dataLength);
            for (int i = 0; i < padding; i++) {
                crc.updateByte(0);
            }
            trailer.writeIntLE(crc.value());
        }
        return trailer;
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
