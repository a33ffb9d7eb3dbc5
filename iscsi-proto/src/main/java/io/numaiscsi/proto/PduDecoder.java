package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Resumable receive state machine for one connection (RFC 7143 11.1 PDU layout): BHS, AHS,
 * header digest, data segment, padding, data digest. Any short read leaves the state where it
 * stopped; the next {@link #decode} call continues. Single-threaded.
 *
 * <p>Framing failures ({@link PduFailure}) are final: the decoder swallows all further input
 * until {@link #reset()}, and the session closes the connection. A data digest error is not a
 * framing failure: the PDU is returned flagged.
 */
public final class PduDecoder {
    /** MaxRecvDataSegmentLength before negotiation (RFC 7143 13.12 default, used in the login phase). */
    public static final int DEFAULT_MAX_RECV_DATA_SEGMENT_LENGTH = 8192;

    private static final int DIGEST_LENGTH = 4;

    enum State {
        BHS,
        AHS,
        HEADER_DIGEST,
        DATA,
        PADDING,
        DATA_DIGEST,
        FAILED
    }

    private final Crc32cDigest crc = new Crc32cDigest();
    private int maxRecvDataSegmentLength = DEFAULT_MAX_RECV_DATA_SEGMENT_LENGTH;
    private int maxAhsLength = Bhs.MAX_AHS_LENGTH;
    private boolean headerDigest;
    private boolean dataDigest;

    private State state = State.BHS;
    private ByteBuf bhs;
    private ByteBuf ahs;
    private ByteBuf data;
    private int ahsLength;
    private int dataLength;
    private int paddingLeft;
    private int digestValue;
    private int digestBytes;
    private boolean dataDigestError;
    private PduFailure failure;
    private ByteBuf failedBhs;

    public PduDecoder() {}

    /** Larger incoming data segments fail the decoder; default 8192 (login phase). */
    public void maxRecvDataSegmentLength(int bytes) {
        if (bytes < 0 || bytes > Bhs.MAX_DATA_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("MaxRecvDataSegmentLength out of range: " + bytes);
        }
        maxRecvDataSegmentLength = bytes;
    }

    public int maxRecvDataSegmentLength() {
        return maxRecvDataSegmentLength;
    }

    /** Larger AHS fail the decoder with AHS_TOO_LONG; default 1020 (the field's maximum). */
    public void maxAhsLength(int bytes) {
        if (bytes < 0 || bytes > Bhs.MAX_AHS_LENGTH) {
            throw new IllegalArgumentException("AHS limit out of range: " + bytes);
        }
        maxAhsLength = bytes;
    }

    /** Takes effect from the next PDU boundary; the session switches them on after login. */
    public void digests(boolean header, boolean data) {
        headerDigest = header;
        dataDigest = data;
    }

    /** Null while healthy. */
    public PduFailure failure() {
        return failure;
    }

    /** The BHS of the PDU that failed, or null. Owned by the decoder (released by {@link #reset()}). */
    public ByteBuf failedBhs() {
        return failedBhs;
    }

    State state() {
        return state;
    }

    /** The next complete PDU, or null when more bytes are needed or the decoder has failed. */
    public Pdu decode(ByteBuf in, ByteBufAllocator alloc) {
        for (; ; ) {
            switch (state) {
                case BHS -> {
                    if (!readBhs(in, alloc)) {
                        return null;
                    }
                    if (!startPdu(alloc)) {
                        return null;
                    }
                }
                case AHS -> {
                    if (!fill(ahs, in)) {
                        return null;
                    }
                    state = headerDigest ? State.HEADER_DIGEST : afterHeader();
                }
                case HEADER_DIGEST -> {
                    if (!readDigest(in)) {
                        return null;
                    }
                    if (!checkHeaderDigest()) {
                        return null;
                    }
                    state = afterHeader();
                }
                case DATA -> {
                    if (!readData(in, alloc)) {
                        return null;
                    }
                    if (dataDigest) {
                        crc.reset();
                        crc.update(data, data.readerIndex(), dataLength);
                    }
                    paddingLeft = -dataLength & 3;
                    state = State.PADDING;
                }
                case PADDING -> {
                    if (!skipPadding(in)) {
                        return null;
                    }
                    state = dataDigest ? State.DATA_DIGEST : State.BHS;
                }
                case DATA_DIGEST -> {
                    if (!readDigest(in)) {
                        return null;
                    }
                    dataDigestError = digestValue != crc.value();
                    state = State.BHS;
                }
                case FAILED -> {
                    in.skipBytes(in.readableBytes());
                    return null;
                }
                default -> throw new IllegalStateException(state.name());
            }
            if (state == State.BHS) {
                return complete();
            }
        }
    }

    /** Releases everything buffered and returns to the BHS state (connection close or reuse). */
    public void reset() {
        bhs = release(bhs);
        ahs = release(ahs);
        data = release(data);
        failedBhs = release(failedBhs);
        failure = null;
        dataDigestError = false;
        digestBytes = 0;
        state = State.BHS;
    }

    private boolean readBhs(ByteBuf in, ByteBufAllocator alloc) {
        if (bhs == null) {
            if (!in.isReadable()) {
                return false;
            }
            bhs = alloc.directBuffer(Bhs.LENGTH, Bhs.LENGTH);
        }
        return fill(bhs, in);
    }

    /** Validates the lengths of a complete BHS and picks the next state; false on failure. */
    private boolean startPdu(ByteBufAllocator alloc) {
        ahsLength = Bhs.totalAhsLength(bhs);
        dataLength = Bhs.dataSegmentLength(bhs);
        if (dataLength > maxRecvDataSegmentLength) {
            return fail(PduFailure.DATA_SEGMENT_TOO_LONG);
        }
        if (ahsLength > maxAhsLength) {
            return fail(PduFailure.AHS_TOO_LONG);
        }
        if (ahsLength > 0) {
            // Bounded by 1020 bytes, so buffering it (as a copy) is harmless.
            ahs = alloc.directBuffer(ahsLength, ahsLength);
            state = State.AHS;
        } else {
            state = headerDigest ? State.HEADER_DIGEST : afterHeader();
        }
        return true;
    }

    private State afterHeader() {
        return dataLength > 0 ? State.DATA : State.BHS;
    }

    private boolean checkHeaderDigest() {
        crc.reset();
        crc.update(bhs, 0, Bhs.LENGTH);
        if (ahs != null) {
            crc.update(ahs, 0, ahsLength);
        }
        if (crc.value() != digestValue) {
            return fail(PduFailure.HEADER_DIGEST_ERROR);
        }
        return true;
    }

    private boolean readData(ByteBuf in, ByteBufAllocator alloc) {
        if (data == null) {
            if (in.readableBytes() >= dataLength) {
                data = in.readRetainedSlice(dataLength);
                return true;
            }
            if (!in.isReadable()) {
                return false;
            }
            data = alloc.buffer(dataLength, dataLength);
        }
        return fill(data, in);
    }

    private boolean skipPadding(ByteBuf in) {
        int n = Math.min(paddingLeft, in.readableBytes());
        if (n > 0) {
            if (dataDigest) {
                // The data digest covers the padding bytes as received.
                crc.update(in, in.readerIndex(), n);
            }
            in.skipBytes(n);
            paddingLeft -= n;
        }
        return paddingLeft == 0;
    }

    /** Copies into {@code dst} up to its capacity; true once full. */
    private static boolean fill(ByteBuf dst, ByteBuf in) {
        int n = Math.min(dst.writableBytes(), in.readableBytes());
        if (n > 0) {
            dst.writeBytes(in, n);
        }
        return !dst.isWritable();
    }

    /** Digests go least significant byte first (RFC 7143 Appendix A.4). */
    private boolean readDigest(ByteBuf in) {
        if (digestBytes == 0 && in.readableBytes() >= DIGEST_LENGTH) {
            digestValue = in.readIntLE();
            return true;
        }
        while (digestBytes < DIGEST_LENGTH && in.isReadable()) {
            if (digestBytes == 0) {
                digestValue = 0;
            }
            digestValue |= in.readUnsignedByte() << (8 * digestBytes);
            digestBytes++;
        }
        if (digestBytes < DIGEST_LENGTH) {
            return false;
        }
        digestBytes = 0;
        return true;
    }

    private Pdu complete() {
        Pdu pdu = Pdu.newInstance(bhs, ahs, data, dataDigestError);
        bhs = null;
        ahs = null;
        data = null;
        dataDigestError = false;
        return pdu;
    }

    private boolean fail(PduFailure why) {
        failure = why;
        failedBhs = bhs;
        bhs = null;
        ahs = release(ahs);
        data = release(data);
        state = State.FAILED;
        return false;
    }

    private static ByteBuf release(ByteBuf buf) {
        if (buf != null) {
            buf.release();
        }
        return null;
    }
}
