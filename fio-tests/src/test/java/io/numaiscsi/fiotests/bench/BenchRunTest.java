package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchRunTest {

    @Test
    void scheduleAlternatesTargetsWithinEachRepeatOfACellStartingEachRepeatWithTheNextTarget() {
        Target a = new Target("A", "127.0.0.1", 1, "iqn.2026-11.a:a", List.of(1), 1);
        Target b = new Target("B", "127.0.0.1", 2, "iqn.2026-11.a:b", List.of(0), 2);
        Workload w1 = Workload.parseLine("w1 randread 4k 32 1 1");
        Workload w2 = Workload.parseLine("w2 read 512k 8 1 1");
        List<String> order = BenchRun.schedule(List.of(w1, w2), List.of(a, b), 2).stream()
                .map(s -> s.workload().name() + ":" + s.target().name() + ":" + s.repeat())
                .toList();
        assertEquals(List.of("w1:A:1", "w1:B:1", "w1:B:2", "w1:A:2", "w2:A:1", "w2:B:1", "w2:B:2", "w2:A:2"), order);
    }
}
