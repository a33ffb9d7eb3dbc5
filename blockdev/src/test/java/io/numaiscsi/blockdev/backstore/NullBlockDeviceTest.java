package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.numa.DataTouches;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class NullBlockDeviceTest {
    private static final long SIZE = 1 << 20;
    private final NullBlockDevice d = new NullBlockDevice(SIZE, 512, DataTouches.singleNode());

    @Test
    void readsZeroesIntoADirtyBufferAtItsWriterIndexInline() throws InterruptedException {
        ByteBuf buf = Unpooled.buffer(16 + 4096);
        byte[] old = new byte[16 + 4096];
        Arrays.fill(old, (byte) 0x5a); // a pooled buffer's leftovers from another command
        buf.writeBytes(old).clear().writerIndex(16);
        Completion c = new Completion();
        d.read(4096, 4096, buf, c);
        assertEquals(IoStatus.OK, c.await());
        assertSame(Thread.currentThread(), c.thread, "no storage: completes on the caller's thread");
        assertEquals(16 + 4096, buf.writerIndex());
        assertArrayEquals(new byte[4096], ByteBufUtil.getBytes(buf, 16, 4096));
        assertEquals(0x5a, buf.getByte(15), "bytes before the writer index are the caller's");
    }

    @Test
    void writesAreAcknowledgedAndDroppedAndReadBackAsZeroes() throws InterruptedException {
        byte[] ones = new byte[512];
        Arrays.fill(ones, (byte) 1);
        Completion w = new Completion();
        d.write(0, Unpooled.wrappedBuffer(ones), true, w);
        assertEquals(IoStatus.OK, w.await());
        ByteBuf buf = Unpooled.buffer(512);
        Completion r = new Completion();
        d.read(0, 512, buf, r);
        assertEquals(IoStatus.OK, r.await());
        assertArrayEquals(new byte[512], ByteBufUtil.getBytes(buf));
        assertFalse(d.isMapped(0));
        assertEquals(SIZE, d.nextMappingChange(0));
    }

    @Test
    void outOfRangeAndClosedAreRefused() throws InterruptedException {
        Completion c = new Completion();
        d.read(SIZE - 512, 1024, Unpooled.buffer(1024), c);
        assertEquals(IoStatus.OUT_OF_RANGE, c.await());
        d.close();
        Completion w = new Completion();
        d.write(0, Unpooled.wrappedBuffer(new byte[512]), false, w);
        assertEquals(IoStatus.UNAVAILABLE, w.await());
        Completion f = new Completion();
        d.flush(f);
        assertEquals(IoStatus.UNAVAILABLE, f.await());
    }
}
