package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * Base of the per-opcode BHS flyweights: the wrapped buffer and the fields every BHS has at the same offset
 * (RFC 7143 11.2.1). Absolute access, reader and writer indexes untouched; setters return the flyweight itself,
 * typed as the concrete header, so nothing is allocated per call.
 *
 * @param <T> the concrete header
 */
public abstract class BhsFlyweight<T extends BhsFlyweight<T>> {
    ByteBuf buf;

    BhsFlyweight() {}

    public final T wrap(ByteBuf bhs) {
        buf = bhs;
        return self();
    }

    public final ByteBuf buffer() {
        return buf;
    }

    /** The 6-bit opcode, see {@link Opcode#of(int)}. */
    public final int opcode() {
        return Bhs.opcode(buf);
    }

    public final boolean immediate() {
        return Bhs.immediate(buf);
    }

    public final boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    /** TotalAHSLength in bytes. */
    public final int totalAhsLength() {
        return Bhs.totalAhsLength(buf);
    }

    public final int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public final int initiatorTaskTag() {
        return Bhs.initiatorTaskTag(buf);
    }

    @SuppressWarnings("unchecked")
    final T self() {
        return (T) this;
    }

    /** Zeroes the BHS, makes its 48 bytes readable and writes the opcode and byte 1. */
    final T init(Opcode opcode, int byte1) {
        Bhs.init(buf, opcode.code(), byte1);
        return self();
    }

    /** A bit of byte 1, the flags byte. */
    final boolean flag(int mask) {
        return Bhs.flag(buf, Bhs.FLAGS_OFFSET, mask);
    }

    final T flag(int mask, boolean on) {
        Bhs.flag(buf, Bhs.FLAGS_OFFSET, mask, on);
        return self();
    }

    final T setByte(int offset, int value) {
        buf.setByte(offset, value);
        return self();
    }

    final T setShort(int offset, int value) {
        buf.setShort(offset, value);
        return self();
    }

    final T setInt(int offset, int value) {
        buf.setInt(offset, value);
        return self();
    }
}
