package io.numaiscsi.daemon.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.NumaSettings;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {

    private static TargetDefinition target(String name, int luns) {
        List<LunDefinition> l = new ArrayList<>();
        for (int i = 0; i < luns; i++) {
            l.add(new LunDefinition(i, BackingType.RAM, null, 1 << 20, 512, null));
        }
        return new TargetDefinition("iqn.2026-11.io.numaiscsi:" + name, null, List.of(), l);
    }

    @Test
    void spreadPutsEachTargetOnTheNodeWithFewestLuns() {
        TargetPlacement p = new TargetPlacement(
                2, NumaSettings.Placement.SPREAD, 0, List.of(target("a", 2), target("b", 1), target("c", 1)));
        assertEquals(0, p.applyAsInt("iqn.2026-11.io.numaiscsi:a"));
        assertEquals(1, p.applyAsInt("iqn.2026-11.io.numaiscsi:b"));
        assertEquals(1, p.applyAsInt("iqn.2026-11.io.numaiscsi:c"));
        assertArrayEquals(new int[] {2, 2}, p.lunsPerNode());
        assertEquals(0, p.applyAsInt("iqn.2026-11.io.numaiscsi:later"), "a live target goes where there are fewest");
        assertEquals(0, p.applyAsInt("iqn.2026-11.io.numaiscsi:later"), "and stays there");
    }

    @Test
    void portalNodePutsEverythingOnTheInterfacesNode() {
        TargetPlacement p =
                new TargetPlacement(2, NumaSettings.Placement.PORTAL_NODE, 1, List.of(target("a", 1), target("b", 1)));
        assertArrayEquals(new int[] {0, 2}, p.lunsPerNode());
    }

    @Test
    void eachNodeGetsOnePoolOfSizePerNodeWhateverItsLunCount() {
        NumaTopology t = NumaTopology.detect().pretend(3);
        try (NodeMemory memory = NodeMemory.open(t)) {
            int block = 512 * 1024;
            CachePools pools = new CachePools(new long[] {64L << 20, 64L << 20, 3L * block}, block, 2, memory);
            assertEquals(64L << 20, pools.pool(0).bytes());
            assertEquals(64L << 20, pools.pool(1).bytes());
            assertEquals(
                    null, pools.pool(2), "fewer than two blocks per partition: no cache rather than a useless one");
            assertEquals(2, pools.memory().size());
            pools.free();
        }
    }

    @Test
    void autoSizeIsAnEighthOfFreeMemoryCappedAndFloored() {
        int partitions = 16;
        int block = 512 * 1024;
        assertEquals(CacheSizing.AUTO_CAP, CacheSizing.auto(20L << 30, partitions, block));
        assertEquals(64L << 20, CacheSizing.auto(512L << 20, partitions, block));
        assertEquals(16L << 20, CacheSizing.auto(8L << 20, partitions, block), "two blocks per partition at least");
        assertEquals(CacheSizing.AUTO_CAP, CacheSizing.auto(-1, partitions, block));
    }
}
