package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PduDecoder} fed arbitrary bytes with arbitrary limits and digest settings. Invariants: no exception (a bad
 * stream ends as a {@link PduFailure} verdict), every PDU's parts match its BHS lengths and the limits, feeding the same
 * bytes in arbitrary pieces gives the same PDUs and verdict as feeding them whole, nothing is allocated beyond the
 * limits, and every buffer is released.
 *
 * <p>Input layout: byte 0 bit 0 header digest, bit 1 data digest; bytes 1-2 MaxRecvDataSegmentLength / 4; byte 3
 * AHS limit / 4; byte 4 piece size - 1 for the second feed; the rest is the byte stream.
 *
 * <p>{@code mvn test} runs the inputs in {@code src/test/resources/.../PduDecoderFuzzTestInputs/decode/} (Jazzer's
 * regression mode) and {@link #seededInputs()}; {@code bin/fuzz PduDecoderFuzzTest} fuzzes.
 */
class PduDecoderFuzzTest {
    static final int HEADER = 5;
    static final int SEEDED_INPUTS = 3000;

    @FuzzTest(maxDuration = "90m", maxExecutions = 10_000_000L)
    void decode(byte[] input) {
        check(input);
    }

    /** The bounded, deterministic share of the fuzzing that runs with every build: valid streams, then mutated. */
    @Test
    void seededInputs() {
        Random random = new Random(7143);
        for (int i = 0; i < SEEDED_INPUTS; i++) {
            byte[] input = validInput(random);
            int flips = i % 3 == 0 ? 0 : 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                int at = HEADER + random.nextInt(input.length - HEADER);
                input[at] = (byte) random.nextInt(256);
            }
            check(input);
        }
    }

    /** A stream of 1-4 well-formed PDUs (random BHS fields, AHS, data) under matching limits and digests. */
    static byte[] validInput(Random random) {
        boolean hd = random.nextBoolean();
        boolean dd = random.nextBoolean();
        PduEncoder encoder = new PduEncoder();
        encoder.digests(hd, dd);
        UnpooledByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;
        ByteBuf stream = alloc.buffer();
        int largestData = 0;
        int largestAhs = 0;
        int pdus = 1 + random.nextInt(4);
        for (int p = 0; p < pdus; p++) {
            ByteBuf bhs = alloc.buffer(Bhs.LENGTH);
            byte[] fields = new byte[Bhs.LENGTH];
            random.nextBytes(fields);
            bhs.writeBytes(fields);
            ByteBuf ahs = null;
            if (random.nextInt(4) == 0) {
                int words = 1 + random.nextInt(8);
                ahs = alloc.buffer(words * 4);
                ahs.writeShort(words * 4 - 3);
                ahs.writeByte(1 + random.nextInt(2));
                for (int i = 3; i < words * 4; i++) {
                    ahs.writeByte(random.nextInt(256));
                }
                largestAhs = Math.max(largestAhs, words * 4);
            }
            ByteBuf data = null;
            int dataLength = random.nextInt(3) == 0 ? 0 : random.nextInt(3000);
            if (dataLength > 0) {
                byte[] d = new byte[dataLength];
                random.nextBytes(d);
                data = alloc.buffer(dataLength).writeBytes(d);
                largestData = Math.max(largestData, dataLength);
            }
            ByteBuf wire = encoder.encode(alloc, bhs, ahs, data);
            stream.writeBytes(wire);
            wire.release();
        }
        int mrdslWords = (Math.max(largestData, 512) + 3) / 4 + random.nextInt(64);
        int ahsWords = largestAhs / 4 + random.nextInt(8);
        byte[] input = new byte[HEADER + stream.readableBytes()];
        input[0] = (byte) ((hd ? 1 : 0) | (dd ? 2 : 0));
        input[1] = (byte) (mrdslWords >>> 8);
        input[2] = (byte) mrdslWords;
        input[3] = (byte) Math.min(255, ahsWords);
        input[4] = (byte) random.nextInt(256);
        stream.readBytes(input, HEADER, stream.readableBytes());
        stream.release();
        return input;
    }

    /** What a decoder made of a stream: the PDUs as bytes and the final verdict. */
    private record Outcome(List<byte[][]> pdus, List<Boolean> digestErrors, PduFailure failure, byte[] failedBhs) {}

    static void check(byte[] input) {
        if (input.length < HEADER) {
            return;
        }
        boolean headerDigest = (input[0] & 1) != 0;
        boolean dataDigest = (input[0] & 2) != 0;
        int mrdsl = ((input[1] & 0xff) << 8 | (input[2] & 0xff)) * 4;
        int maxAhs = (input[3] & 0xff) * 4;
        int piece = (input[4] & 0xff) + 1;
        Outcome whole = feed(input, Integer.MAX_VALUE, headerDigest, dataDigest, mrdsl, maxAhs);
        Outcome pieces = feed(input, piece, headerDigest, dataDigest, mrdsl, maxAhs);
        assertEquals(whole.pdus().size(), pieces.pdus().size(), "PDUs decoded whole vs in pieces of " + piece);
        for (int i = 0; i < whole.pdus().size(); i++) {
            for (int part = 0; part < 3; part++) {
                assertArrayEquals(whole.pdus().get(i)[part], pieces.pdus().get(i)[part], "PDU " + i + " part " + part);
            }
        }
        assertEquals(whole.digestErrors(), pieces.digestErrors());
        assertEquals(whole.failure(), pieces.failure());
        assertArrayEquals(whole.failedBhs(), pieces.failedBhs());
    }

    private static Outcome feed(
            byte[] input, int piece, boolean headerDigest, boolean dataDigest, int mrdsl, int maxAhs) {
        TrackingAllocator alloc = new TrackingAllocator();
        PduDecoder decoder = new PduDecoder();
        decoder.maxRecvDataSegmentLength(mrdsl);
        decoder.maxAhsLength(maxAhs);
        decoder.digests(headerDigest, dataDigest);
        List<byte[][]> pdus = new ArrayList<>();
        List<Boolean> digestErrors = new ArrayList<>();
        List<ByteBuf> inputs = new ArrayList<>();
        for (int at = HEADER, n; at < input.length; at += n) {
            n = Math.min(piece, input.length - at);
            // input comes from the socket, not from the decoder's allocations: tracked apart
            ByteBuf in = Unpooled.buffer(n, n).writeBytes(input, at, n);
            inputs.add(in);
            Pdu pdu;
            while ((pdu = decoder.decode(in, alloc)) != null) {
                pdus.add(checkedParts(pdu, mrdsl, maxAhs));
                digestErrors.add(pdu.dataDigestError());
                pdu.release();
            }
            // after a framing failure the rest stays unread (the transport skips it and closes)
            assertTrue(!in.isReadable() || decoder.failure() != null, "decode returned null with input left");
            in.release();
        }
        PduFailure failure = decoder.failure();
        byte[] failedBhs = null;
        if (failure != null) {
            assertNotNull(decoder.failedBhs(), "a failure keeps its BHS for the Reject");
            failedBhs = ByteBufUtil.getBytes(decoder.failedBhs());
            assertEquals(Bhs.LENGTH, failedBhs.length);
            checkFailure(failure, decoder.failedBhs(), headerDigest, mrdsl, maxAhs);
            ByteBuf more = alloc.buffer(1, 1).writeByte(0);
            assertNull(decoder.decode(more, alloc), "a failed decoder stays failed");
            assertFalse(more.isReadable(), "a failed decoder discards its input");
            more.release();
        }
        decoder.reset();
        assertNull(decoder.failure());
        alloc.assertAllReleased();
        for (ByteBuf in : inputs) {
            assertEquals(0, in.refCnt(), "a slice of the input outlived its PDU");
        }
        int bound = Math.max(Bhs.LENGTH, Math.max(mrdsl, maxAhs));
        assertTrue(
                alloc.largestRequest() <= bound,
                "allocated " + alloc.largestRequest() + " bytes, limits allow " + bound);
        return new Outcome(pdus, digestErrors, failure, failedBhs);
    }

    private static byte[][] checkedParts(Pdu pdu, int mrdsl, int maxAhs) {
        ByteBuf bhs = pdu.bhs();
        assertEquals(0, bhs.readerIndex());
        assertEquals(Bhs.LENGTH, bhs.readableBytes());
        int ahsLength = Bhs.totalAhsLength(bhs);
        int dataLength = Bhs.dataSegmentLength(bhs);
        assertTrue(ahsLength <= maxAhs, "AHS " + ahsLength + " over the limit " + maxAhs);
        assertTrue(dataLength <= mrdsl, "data segment " + dataLength + " over MaxRecvDataSegmentLength " + mrdsl);
        if (ahsLength == 0) {
            assertNull(pdu.ahs());
        } else {
            assertEquals(ahsLength, pdu.ahs().readableBytes());
        }
        if (dataLength == 0) {
            assertNull(pdu.data());
        } else {
            assertEquals(dataLength, pdu.data().readableBytes());
        }
        // the accessors the session uses must not throw on any PDU
        pdu.opcode();
        pdu.immediate();
        pdu.initiatorTaskTag();
        if (pdu.ahs() != null) {
            Ahs.valid(pdu.ahs());
            Ahs.find(pdu.ahs(), Ahs.TYPE_EXTENDED_CDB);
        }
        return new byte[][] {
            ByteBufUtil.getBytes(bhs),
            pdu.ahs() == null ? new byte[0] : ByteBufUtil.getBytes(pdu.ahs()),
            pdu.data() == null ? new byte[0] : ByteBufUtil.getBytes(pdu.data())
        };
    }

    private static void checkFailure(PduFailure failure, ByteBuf bhs, boolean headerDigest, int mrdsl, int maxAhs) {
        switch (failure) {
            case DATA_SEGMENT_TOO_LONG -> assertTrue(Bhs.dataSegmentLength(bhs) > mrdsl, "DATA_SEGMENT_TOO_LONG");
            case AHS_TOO_LONG -> assertTrue(Bhs.totalAhsLength(bhs) > maxAhs, "AHS_TOO_LONG");
            case HEADER_DIGEST_ERROR -> assertTrue(headerDigest, "header digest error without header digests");
            default -> throw new AssertionError(failure);
        }
    }
}
