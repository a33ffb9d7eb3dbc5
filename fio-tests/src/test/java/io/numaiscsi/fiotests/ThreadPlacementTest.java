package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ThreadPlacementTest {

    private static final List<String> NODES = List.of("node0 0", "node1 1");

    @Test
    void cpuListsExpandRanges() {
        assertEquals(new TreeSet<>(List.of(0, 1, 2, 3, 8, 10, 11)), ThreadPlacement.cpuList("0-3,8,10-11"));
        assertEquals(new TreeSet<>(List.of(1)), ThreadPlacement.cpuList("1"));
    }

    @Test
    void workersOnTheirNodesCpusPass() {
        ThreadPlacement p = ThreadPlacement.parse(
                List.of("101\tjava\t0-1", "140\tnode0-worker-1\t0", "141\tnode1-worker-1\t1", "150\tlun-0-events\t0"),
                NODES);
        assertEquals(4, p.threads().size());
        assertEquals(1, p.named("node1-worker").size());
        assertTrue(
                p.workerProblems(Set.of(0, 1)).isEmpty(),
                p.workerProblems(Set.of(0, 1)).toString());
    }

    @Test
    void aWorkerOnTheWrongCpusOrAMissingNodeIsReported() {
        ThreadPlacement p = ThreadPlacement.parse(List.of("140\tnode0-worker-1\t0-1"), NODES);
        List<String> problems = p.workerProblems(Set.of(0, 1));
        assertEquals(2, problems.size(), problems.toString());
        assertEquals("no node1-worker thread", problems.get(0));
        assertTrue(problems.get(1).startsWith("node0-worker-1 (tid 140) may run on [0, 1]"), problems.get(1));
    }

    @Test
    void aNodeNothingWasForwardedToNeedsNoWorkers() {
        ThreadPlacement p = ThreadPlacement.parse(List.of("141\tnode1-worker-1\t1"), NODES);
        assertTrue(
                p.workerProblems(Set.of(1)).isEmpty(),
                p.workerProblems(Set.of(1)).toString());
        assertEquals(List.of("no node0-worker thread"), p.workerProblems(Set.of(0, 1)));
    }
}
