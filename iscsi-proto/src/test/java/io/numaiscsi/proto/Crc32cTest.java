package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {
    /** RFC 7143 Appendix A.4 (RFC 3720 B.4): the digest bytes as they appear on the wire. */
    private static final int[][] VECTORS_WIRE = {
        {0xaa, 0x36, 0x91, 0x8a}, // 32 bytes of zeroes
        {0x43, 0xab, 0xa8, 0x62}, // 32 bytes of 0xff
        {0x4e, 0x79, 0xdd, 0x46}, // 32 bytes ascending 0x00..0x1f
        {0x5c, 0xdb, 0x3f, 0x11}, // 32 bytes descending 0x1f..0x00
        {0x56, 0x3a, 0x96, 0xd9}, // SCSI Read(10) command BHS
    };

    private static byte[] input(int which) {
        byte[] b;
        switch (which) {
            case 0:
                return new byte[32];
            case 1:
                b = new byte[32];
                Arrays.fill(b, (byte) 0xff);
                return b;
            case 2:
                b = new byte[32];
                for (int i = 0; i < 32; i++) {
                    b[i] = (byte) i;
                }
                return b;
            case 3:
                b = new byte[32];
                for (int i = 0; i < 32; i++) {
                    b[i] = (byte) (31 - i);
                }
                return b;
            default:
                int[] read10 = {
                    0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                    0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
                    0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
                    0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
                };
                b = new byte[48];
                for (int i = 0; i < 48; i++) {
                    b[i] = (byte) read10[i];
                }
                return b;
        }
    }

    private static byte[] wireBytes(int crc) {
        ByteBuf b = Unpooled.buffer(4).writeIntLE(crc);
        byte[] out = new byte[4];
        b.readBytes(out);
        b.release();
        return out;
    }

    private static byte[] expected(int which) {
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            out[i] = (byte) VECTORS_WIRE[which][i];
        }
        return out;
    }

    @Test
    void rfcVectorsStatic() {
        for (int v = 0; v < VECTORS_WIRE.length; v++) {
            ByteBuf buf = Unpooled.wrappedBuffer(input(v));
            assertEquals(
                    Arrays.toString(expected(v)),
                    Arrays.toString(wireBytes(Crc32c.compute(buf, 0, buf.readableBytes()))),
                    "vector " + v);
            buf.release();
        }
    }

    @Test
    void rfcVectorsDigestHeapAndDirect() {
        Crc32cDigest digest = new Crc32cDigest();
        for (int v = 0; v < VECTORS_WIRE.length; v++) {
            byte[] in = input(v);
            ByteBuf heap = Unpooled.wrappedBuffer(in);
            ByteBuf direct = Unpooled.directBuffer(in.length).writeBytes(in);
            for (ByteBuf buf : new ByteBuf[] {heap, direct}) {
                digest.reset();
                digest.update(buf, 0, in.length);
                assertEquals(Arrays.toString(expected(v)), Arrays.toString(wireBytes(digest.value())));
                buf.release();
            }
        }
    }

    @Test
    void knownCheckValue() {
        ByteBuf buf = Unpooled.copiedBuffer("123456789", StandardCharsets.US_ASCII);
        assertEquals(0xe3069283, Crc32c.compute(buf, 0, 9));
        buf.release();
    }

    @Test
    void updateContinuesAcrossSplitsAndComposites() {
        byte[] data = new byte[1000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        ByteBuf whole = Unpooled.wrappedBuffer(data);
        int expected = Crc32c.compute(whole, 0, data.length);
        CRC32C jdk = new CRC32C();
        jdk.update(data);
        assertEquals((int) jdk.getValue(), expected);
        for (int split : new int[] {0, 1, 7, 8, 9, 500, 999, 1000}) {
            int crc = Crc32c.update(Crc32c.compute(whole, 0, split), whole, split, data.length - split);
            assertEquals(expected, crc, "split at " + split);
        }
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        composite.addComponent(true, Unpooled.wrappedBuffer(data, 0, 333));
        composite.addComponent(true, Unpooled.directBuffer(667).writeBytes(data, 333, 667));
        assertEquals(expected, Crc32c.compute(composite, 0, data.length));
        Crc32cDigest digest = new Crc32cDigest();
        digest.update(composite, 0, data.length);
        assertEquals(expected, digest.value());
        composite.release();
        whole.release();
    }
}
