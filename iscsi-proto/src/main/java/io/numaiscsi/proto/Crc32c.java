package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78) as used for iSCSI digests, RFC 7143 13.1.
 * Values are the usual CRC32C result (what {@link java.util.zip.CRC32C#getValue()} returns); on the
 * wire the digest goes least significant byte first (see the Appendix A.4 examples).
 *
 * <p>This static form works on any ByteBuf (composite included) without allocation and can be
 * continued with {@link #update}; the codecs use {@link Crc32cDigest}, which reaches the JDK
 * intrinsic, for bulk data.
 */
public final class Crc32c {
    private static final int POLY = 0x82F63B78;
    private static final int[][] T = new int[8][256];

    static {
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
            }
            T[0][n] = c;
        }
        for (int n = 0; n < 256; n++) {
            for (int t = 1; t < 8; t++) {
                int prev = T[t - 1][n];
                T[t][n] = (prev >>> 8) ^ T[0][prev & 0xff];
            }
        }
    }

    private Crc32c() {}

    /** CRC32C of {@code length} bytes of {@code buf} from absolute {@code index}. */
    public static int compute(ByteBuf buf, int index, int length) {
        return update(0, buf, index, length);
    }

    /** Continues {@code crc} (a previous result, 0 to start) over more bytes: update(compute(a), b) == compute(a || b). */
    public static int update(int crc, ByteBuf buf, int index, int length) {
        int[] t0 = T[0], t1 = T[1], t2 = T[2], t3 = T[3], t4 = T[4], t5 = T[5], t6 = T[6], t7 = T[7];
        int c = ~crc;
        int i = index;
        int end = index + length;
        while (end - i >= 8) {
            long v = buf.getLongLE(i);
            int lo = (int) v ^ c;
            int hi = (int) (v >>> 32);
            c = t7[lo & 0xff]
                    ^ t6[(lo >>> 8) & 0xff]
                    ^ t5[(lo >>> 16) & 0xff]
                    ^ t4[lo >>> 24]
                    ^ t3[hi & 0xff]
                    ^ t2[(hi >>> 8) & 0xff]
                    ^ t1[(hi >>> 16) & 0xff]
                    ^ t0[hi >>> 24];
            i += 8;
        }
        while (i < end) {
            c = (c >>> 8) ^ t0[(c ^ buf.getByte(i)) & 0xff];
            i++;
        }
        return ~c;
    }
}
