package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RamBlockDeviceTest {
    private static final int MIB = 1 << 20;
    private final RamBlockDevice d = new RamBlockDevice(4L * MIB, 512);

    private IoStatus write(long offset, byte[] data) throws InterruptedException {
        Completion c = new Completion();
        d.write(offset, Unpooled.wrappedBuffer(data), false, c);
        return c.await();
    }

    private byte[] read(long offset, int length) throws InterruptedException {
        ByteBuf buf = Unpooled.buffer(length);
        Completion c = new Completion();
        d.read(offset, length, buf, c);
        assertEquals(IoStatus.OK, c.await());
        return ByteBufUtil.getBytes(buf);
    }

    @Test
    void sparseUntilWrittenAndCompletesInline() throws InterruptedException {
        assertEquals(0, d.allocatedBytes());
        assertArrayEquals(new byte[4096], read(0, 4096));
        Completion c = new Completion();
        d.write(MIB - 512, Unpooled.wrappedBuffer(new byte[1024]), false, c);
        assertSame(Thread.currentThread(), c.thread, "RAM completes inline");
        assertEquals(2L * MIB, d.allocatedBytes(), "a write across a chunk boundary maps two chunks");
    }

    @Test
    void roundTripAcrossChunks() throws InterruptedException {
        byte[] data = new byte[3 * 4096];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        assertEquals(IoStatus.OK, write(MIB - 4096, data));
        assertArrayEquals(data, read(MIB - 4096, data.length));
    }

    @Test
    void unmapZeroesAndFreesChunks() throws InterruptedException {
        byte[] ones = new byte[4096];
        Arrays.fill(ones, (byte) 1);
        write(0, ones);
        write(MIB, ones);
        Completion c = new Completion();
        d.unmap(512, 1024, c);
        assertEquals(IoStatus.OK, c.await());
        byte[] back = read(0, 4096);
        assertEquals(1, back[0]);
        assertEquals(0, back[512]);
        assertEquals(0, back[1535]);
        assertEquals(1, back[1536]);
        assertTrue(d.isMapped(0));
        assertFalse(d.isMapped(512));
        assertEquals(512, d.nextMappingChange(0));
        assertEquals(1536, d.nextMappingChange(512));
        Completion all = new Completion();
        d.unmap(MIB, MIB, all);
        all.await();
        assertEquals(MIB, d.allocatedBytes(), "fully unmapped chunk is freed");
        assertFalse(d.isMapped(MIB));
        assertEquals(4L * MIB, d.nextMappingChange(MIB), "nothing mapped up to the end");
        assertEquals(4096, d.nextMappingChange(1536));
    }

    @Test
    void cannotGrow() {
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> d.resize(2 * d.blockCount()));
        assertTrue(e.getMessage().contains("use backing: file"), e.getMessage());
        assertEquals(4L * MIB / 512, d.blockCount());
    }

    @Test
    void outOfRangeAndClosed() throws InterruptedException {
        Completion c = new Completion();
        d.read(4L * MIB, 512, Unpooled.buffer(512), c);
        assertEquals(IoStatus.OUT_OF_RANGE, c.await());
        d.close();
        Completion after = new Completion();
        d.flush(after);
        assertEquals(IoStatus.UNAVAILABLE, after.await());
        assertThrows(IllegalArgumentException.class, () -> new RamBlockDevice(1000, 512));
        assertThrows(IllegalArgumentException.class, () -> new RamBlockDevice(MIB, 1024));
    }
}
