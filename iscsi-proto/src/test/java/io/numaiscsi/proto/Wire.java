package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/** Test helpers that feed encoded bytes to a decoder. */
final class Wire {
    private Wire() {}

    /** Feeds {@code wire} one single-byte buffer at a time (each released after the call); releases wire. */
    static List<Pdu> feedByteAtATime(PduDecoder decoder, ByteBuf wire, ByteBufAllocator alloc) {
        List<Pdu> out = new ArrayList<>();
        while (wire.isReadable()) {
            ByteBuf one = alloc.buffer(1);
            one.writeByte(wire.readByte());
            Pdu pdu;
            while ((pdu = decoder.decode(one, alloc)) != null) {
                out.add(pdu);
            }
            assertFalse(one.isReadable());
            one.release();
        }
        wire.release();
        return out;
    }

    /** Feeds all of {@code wire} at once (copied into one plain buffer); releases both. */
    static List<Pdu> feedAll(PduDecoder decoder, ByteBuf wire, ByteBufAllocator alloc) {
        ByteBuf in = alloc.buffer(wire.readableBytes());
        in.writeBytes(wire);
        wire.release();
        List<Pdu> out = new ArrayList<>();
        Pdu pdu;
        while ((pdu = decoder.decode(in, alloc)) != null) {
            out.add(pdu);
        }
        assertFalse(in.isReadable());
        assertNull(decoder.decode(in, alloc));
        in.release();
        return out;
    }

    static ByteBuf bytes(ByteBufAllocator alloc, int... values) {
        ByteBuf b = alloc.buffer(values.length);
        for (int v : values) {
            b.writeByte(v);
        }
        return b;
    }

    static ByteBuf pattern(ByteBufAllocator alloc, int length, int seed) {
        ByteBuf b = alloc.buffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(seed + i * 7);
        }
        return b;
    }
}
