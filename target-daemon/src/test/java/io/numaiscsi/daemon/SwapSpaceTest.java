package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SwapSpaceTest {
    private static final String HEADER = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority";

    @Test
    void onlyTheHeaderMeansNoSwap() {
        assertTrue(SwapSpace.none(List.of(HEADER)));
        assertTrue(SwapSpace.none(List.of(HEADER, "")));
    }

    @Test
    void aSwapAreaIsSwap() {
        assertFalse(SwapSpace.none(List.of(HEADER, "/dev/vdb\t\tpartition\t1048572\t\t0\t\t-2")));
    }
}
