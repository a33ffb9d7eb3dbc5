package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PartitionHashTest {

    /** 2 nodes x 4 partitions, groups of 4 blocks. */
    @ParameterizedTest(name = "block {0} -> partition {1}, node {2}, index {3}")
    @CsvSource({
        "0, 0, 0, 0",
        "3, 0, 0, 0",
        "4, 1, 1, 0",
        "7, 1, 1, 0",
        "8, 2, 0, 1",
        "28, 7, 1, 3",
        "31, 7, 1, 3",
        "32, 0, 0, 0",
        "4000000000, 0, 0, 0",
        "4000000004, 1, 1, 0",
    })
    void mappingTable(long block, int partition, int node, int index) {
        PartitionHash h = new PartitionHash(2, 4, 4);
        assertEquals(partition, h.partition(block));
        assertEquals(node, h.nodeOfPartition(partition));
        assertEquals(node, h.nodeOfBlock(block));
        assertEquals(index, h.indexInNode(partition));
    }

    @Test
    void neighboursShareOnePartition() {
        PartitionHash h = new PartitionHash(2, 16, 4);
        for (long group = 0; group < 1000; group++) {
            int p = h.partition(group * 4);
            for (int i = 1; i < 4; i++) {
                assertEquals(p, h.partition(group * 4 + i));
            }
        }
        assertEquals(32, h.totalPartitions());
    }

    @Test
    void everyPartitionIsUsedEvenly() {
        PartitionHash h = new PartitionHash(3, 5, 2);
        int[] counts = new int[15];
        for (long b = 0; b < 15 * 2 * 10; b++) {
            counts[h.partition(b)]++;
        }
        for (int c : counts) {
            assertEquals(20, c);
        }
    }
}
