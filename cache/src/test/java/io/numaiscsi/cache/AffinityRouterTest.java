package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AffinityRouterTest {
    private static final int K = 1024;
    /** 2 nodes, 64 KiB blocks, groups of 2 blocks: group g (128 KiB) lives on node g mod 2. */
    private final AffinityRouter router = new AffinityRouter(new PartitionHash(2, 4, 2), 64 * K, 64 * K);

    @ParameterizedTest(name = "offset {0}K length {1}K arriving on {2} -> node {3}")
    @CsvSource({
        "0, 128, 1, 0", // all on node 0
        "128, 128, 0, 1", // all on node 1
        "64, 128, 1, 1", // 64K on node 0, 64K on node 1: tie, stays on the arrival node
        "64, 128, 0, 0", // the same tie arriving on node 0
        "96, 128, 0, 1", // 32K on node 0, 96K on node 1
        "0, 512, 1, 1", // 256K each: tie, arrival wins
        "0, 384, 1, 0", // 256K on 0, 128K on 1
        "0, 32, 1, 1", // under the threshold: served where it arrives
        "128, 63, 0, 0", // just under the threshold, although all bytes are on node 1
    })
    void picksTheNodeWithMostBytes(long offsetK, long lengthK, int arrival, int expected) {
        assertEquals(expected, router.route(offsetK * K, lengthK * K, arrival));
    }

    @Test
    void sumsBytesPerNode() {
        assertEquals(32 * K + 128 * K, router.bytesOnNode(96 * K, 288 * K, 0)); // [96,128) and [256,384)
        assertEquals(128 * K, router.bytesOnNode(96 * K, 288 * K, 1)); // [128,256)
        assertEquals(0, router.bytesOnNode(0, 0, 0));
    }

    @Test
    void smallRequestsAreNotRouted() {
        assertFalse(router.routes(64 * K - 512, 0));
        assertTrue(router.routes(64 * K, 0));
        AffinityRouter oneNode = new AffinityRouter(new PartitionHash(1, 4, 2), 64 * K, 64 * K);
        assertFalse(oneNode.routes(1 << 20, 0));
        assertEquals(0, oneNode.route(0, 1 << 20, 0));
    }
}
