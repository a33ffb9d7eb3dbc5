package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import org.junit.jupiter.api.Test;

/** One completion's effect on a request: short transfers, the end of the file, FUA, and errno to IoStatus. */
class RingTransferTest {
    private static final int BUFFERED_FD = 7;
    private static final int DIRECT_FD = 8;
    private static final int ALIGN = 4096;

    private static IoRequest request(int op, int length, boolean direct) {
        IoRequest r = new IoRequest(null);
        r.op = op;
        r.offset = 1 << 20;
        r.length = length;
        r.buf = Unpooled.buffer(length).writerIndex(op == IoRequest.WRITE ? length : 0);
        r.fd = direct ? DIRECT_FD : BUFFERED_FD;
        r.direct = direct;
        r.index = 0;
        r.address = 1000;
        r.position = r.offset;
        r.left = length;
        return r;
    }

    @Test
    void aShortReadIsSubmittedAgainForTheRest() {
        IoRequest r = request(IoRequest.READ, 8192, false);
        assertNull(RingTransfer.apply(r, 3000, BUFFERED_FD, ALIGN));
        assertEquals(5192, r.left);
        assertEquals(4000, r.address);
        assertEquals((1 << 20) + 3000, r.position);
        assertEquals(IoStatus.OK, RingTransfer.apply(r, 5192, BUFFERED_FD, ALIGN));
        assertEquals(0, r.left);
    }

    @Test
    void theEndOfTheFileReadsAsZeros() {
        IoRequest r = request(IoRequest.READ, 4096, false);
        r.buf.setBytes(0, new byte[4096]);
        r.buf.setByte(4095, 9);
        assertNull(RingTransfer.apply(r, 1024, BUFFERED_FD, ALIGN));
        assertEquals(IoStatus.OK, RingTransfer.apply(r, 0, BUFFERED_FD, ALIGN), "res 0: the file ends here");
        ByteBuf b = r.buf;
        assertArrayEquals(new byte[3072], ByteBufUtil.getBytes(b, 1024, 3072), "the rest is zeros");
    }

    @Test
    void aShortWriteGoesOnAndAWriteThatMovesNothingIsAMediumError() {
        IoRequest r = request(IoRequest.WRITE, 8192, false);
        assertNull(RingTransfer.apply(r, 4096, BUFFERED_FD, ALIGN));
        assertEquals(4096, r.left);
        assertEquals(IoStatus.MEDIUM_ERROR, RingTransfer.apply(r, 0, BUFFERED_FD, ALIGN));
    }

    @Test
    void aFuaWriteIsFollowedByAnFdatasync() {
        IoRequest r = request(IoRequest.WRITE, 4096, false);
        r.fua = true;
        assertNull(RingTransfer.apply(r, 4096, BUFFERED_FD, ALIGN), "the data is written: now the sync");
        assertTrue(r.syncing);
        assertEquals(IoStatus.OK, RingTransfer.apply(r, 0, BUFFERED_FD, ALIGN));
    }

    @Test
    void aShortDirectTransferLeavingTheRestUnalignedFinishesBuffered() {
        IoRequest r = request(IoRequest.READ, 8192, true);
        assertNull(RingTransfer.apply(r, 4096, BUFFERED_FD, ALIGN));
        assertTrue(r.direct, "still aligned: stays direct");
        assertEquals(DIRECT_FD, r.fd);
        r = request(IoRequest.READ, 8192, true);
        assertNull(RingTransfer.apply(r, 1000, BUFFERED_FD, ALIGN));
        assertFalse(r.direct);
        assertEquals(BUFFERED_FD, r.fd);
    }

    @Test
    void errnoMapsAsTheThreadPoolDoes() {
        assertEquals(
                IoStatus.NO_SPACE, RingTransfer.apply(request(IoRequest.WRITE, 512, false), -28, BUFFERED_FD, ALIGN));
        assertEquals(
                IoStatus.MEDIUM_ERROR, RingTransfer.apply(request(IoRequest.READ, 512, false), -5, BUFFERED_FD, ALIGN));
        assertEquals(
                IoStatus.UNAVAILABLE,
                RingTransfer.apply(request(IoRequest.READ, 512, false), -125, BUFFERED_FD, ALIGN),
                "ECANCELED: the ring was torn down");
        IoRequest flush = request(IoRequest.FLUSH, 0, false);
        flush.syncing = true;
        assertEquals(IoStatus.MEDIUM_ERROR, RingTransfer.apply(flush, -5, BUFFERED_FD, ALIGN));
        flush.syncing = true;
        assertEquals(IoStatus.OK, RingTransfer.apply(flush, 0, BUFFERED_FD, ALIGN));
    }
}
