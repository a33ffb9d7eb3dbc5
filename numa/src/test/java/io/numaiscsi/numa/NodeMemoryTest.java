package io.numaiscsi.numa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.MemoryIO;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class NodeMemoryTest {

    @Test
    void allocatesOnNodeZeroOfThisMachine() {
        NumaTopology t = NumaTopology.detect();
        try (NodeMemory m = NodeMemory.open(t)) {
            boolean libnuma = Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libnuma.so.1"))
                    || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libnuma.so.1"));
            assertEquals(libnuma, m.bindsMemory(), "libnuma1 installed here decides binding");
            ByteBuffer bb = m.allocate(0, 3 * 4096 + 1);
            assertTrue(bb.isDirect());
            assertEquals(0, MemoryIO.getInstance().getDirectBufferAddress(bb) % NodeMemory.PAGE, "page-aligned");
            assertTrue(bb.capacity() >= 3 * 4096 + 1);
            assertEquals(0, bb.get(4096 * 2), "zeroed");
            bb.putLong(8, 0x1122334455667788L);
            assertEquals(0x1122334455667788L, bb.getLong(8));
            if (m.bindsMemory()) {
                assertEquals(t.node(0).osNode(), m.residentOsNode(bb));
            }
            m.free(bb);
        }
    }

    @Test
    void pretendTopologyFallsBackToPlainDirectMemory() throws Exception {
        NumaTopology t =
                NumaTopology.detect().pretend(Math.max(2, NumaTopology.detect().nodeCount() + 1));
        try (NodeMemory m = NodeMemory.open(t)) {
            assertFalse(m.bindsMemory());
            ByteBuffer bb = m.allocate(1, 8192);
            assertTrue(bb.isDirect());
            assertEquals(8192, bb.capacity());
            assertEquals(0, MemoryIO.getInstance().getDirectBufferAddress(bb) % NodeMemory.PAGE);
            assertEquals(-1, m.residentOsNode(bb));
        }
    }
}
