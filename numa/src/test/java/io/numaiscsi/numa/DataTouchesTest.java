package io.numaiscsi.numa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

class DataTouchesTest {

    /** Two nodes: pages below the split address are on node 0, the rest on node 1; the CPU is wherever we say. */
    private static final class FakeLocator implements NodeLocator {
        long split;
        int cpu;

        @Override
        public int nodes() {
            return 2;
        }

        @Override
        public int currentCpuNode() {
            return cpu;
        }

        @Override
        public int memoryNode(long address) {
            return address < split ? 0 : 1;
        }
    }

    @Test
    void eachPageCountsOnItsOwnNode() {
        FakeLocator where = new FakeLocator();
        DataTouches t = new DataTouches(where);
        ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
        long base = buf.memoryAddress();
        long firstPage = (base + DataTouches.PAGE - 1) & -DataTouches.PAGE;
        where.split = firstPage + 3 * DataTouches.PAGE; // the buffer's first bytes up to 3 whole pages: node 0
        where.cpu = 1;
        t.touched(DataTouches.Kind.SOCKET_SEND, buf, 0, 64 * 1024);
        long onNode0 = where.split - base;
        assertEquals(onNode0, t.bytes(DataTouches.Kind.SOCKET_SEND, 1, 0));
        assertEquals(64 * 1024 - onNode0, t.bytes(DataTouches.Kind.SOCKET_SEND, 1, 1));
        assertEquals(64 * 1024 - onNode0, t.localBytes());
        assertEquals(64 * 1024, t.totalBytes());
        buf.release();
    }

    @Test
    void compositeComponentsAndHeapMemory() {
        FakeLocator where = new FakeLocator();
        DataTouches t = new DataTouches(where);
        ByteBuf a = UnpooledByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
        where.split = Math.max(a.memoryAddress(), b.memoryAddress()); // the lower buffer on node 0, the other on node 1
        CompositeByteBuf c = Unpooled.compositeBuffer().addComponents(true, a, b);
        where.cpu = 0;
        t.touched(DataTouches.Kind.COPY, c, 4096, 8192); // the second half of one and the first half of the other
        assertEquals(4096, t.bytes(DataTouches.Kind.COPY, 0, 0));
        assertEquals(4096, t.bytes(DataTouches.Kind.COPY, 0, 1));
        t.touched(DataTouches.Kind.COPY, Unpooled.wrappedBuffer(new byte[100]), 0, 100);
        assertEquals(100, t.bytes(DataTouches.Kind.COPY, 0, -1), "a heap array's node is unknown");
        where.cpu = -1;
        t.touched(DataTouches.Kind.BACKING, 0, 10);
        assertEquals(10, t.bytes(DataTouches.Kind.BACKING, -1, 0), "an unpinned thread's node is unknown");
        assertEquals(4096, t.localBytes());
        c.release();
    }

    @Test
    void oneNodeIsAlwaysLocal() {
        DataTouches t = DataTouches.singleNode();
        t.touched(DataTouches.Kind.SOCKET_RECEIVE, Unpooled.wrappedBuffer(new byte[512]), 0, 512);
        assertEquals(512, t.localBytes());
    }
}
