package io.numaiscsi.numa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CpuPinningTest {

    @Test
    void pinsTheCurrentThreadToThePretendNodesCpus() throws Exception {
        NumaTopology t =
                NumaTopology.detect().pretend(Math.max(2, NumaTopology.detect().nodeCount() + 1));
        NumaNode last = t.node(t.nodeCount() - 1);
        AtomicReference<BitSet> seen = new AtomicReference<>();
        Thread th = new Thread(() -> {
            CpuPinning.pinCurrentThread(last);
            seen.set(CpuPinning.currentAffinity());
        });
        th.start();
        th.join();
        assertEquals(last.cpus(), seen.get());
    }

    @Test
    void threadFactoryPinsAndNamesNodeThreads() throws Exception {
        NumaTopology t = NumaTopology.detect();
        NumaNode n0 = t.node(0);
        AtomicReference<BitSet> seen = new AtomicReference<>();
        AtomicInteger node = new AtomicInteger(-5);
        Thread th = CpuPinning.threadFactory(n0, "worker-n0", true).newThread(() -> {
            seen.set(CpuPinning.currentAffinity());
            node.set(NodeThread.currentNode());
        });
        assertTrue(th.getName().startsWith("worker-n0-"));
        assertTrue(th.isDaemon());
        th.start();
        th.join();
        assertEquals(n0.cpus(), seen.get());
        assertEquals(0, node.get());
        assertEquals(-1, NodeThread.currentNode(), "the test thread is no node thread");
    }
}
