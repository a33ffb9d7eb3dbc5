package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.daemon.metrics.SampleRing.Series;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.scsi.LogicalUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class StatusHistoryTest {
    private static final String IQN = "iqn.2024-01.io.numaiscsi:history";
    private static final long SECOND = 1_000_000_000L;

    private final List<RegisteredLun> served = new CopyOnWriteArrayList<>();
    private final StatusHistory history = new StatusHistory(() -> served, 3);
    private long second;

    private void tick() {
        second++;
        history.sample(second * 1000, second * SECOND);
    }

    private List<Double> readIops(LogicalUnit unit) throws Exception {
        List<Double> out = new ArrayList<>();
        history.read(unit, ring -> {
            for (int i = 0; i < ring.size(); i++) {
                out.add(ring.value(i, Series.READ_IOPS));
            }
        });
        return out;
    }

    @Test
    void eachLunKeepsItsLastSamplesPerSecond() throws Exception {
        UnitUnderLoad a = new UnitUnderLoad(IQN, 0);
        UnitUnderLoad b = new UnitUnderLoad(IQN, 1);
        served.addAll(List.of(a.registered(), b.registered()));
        tick(); // the baseline
        for (int n = 1; n <= 5; n++) {
            a.read(n, 100_000);
            b.read(10 * n, 100_000);
            tick();
        }
        assertEquals(List.of(3.0, 4.0, 5.0), readIops(a.unit()), "the ring keeps the last three");
        assertEquals(List.of(30.0, 40.0, 50.0), readIops(b.unit()));
        history.read(a.unit(), ring -> assertEquals(6000, ring.time(2)));
    }

    @Test
    void lunsAddedLiveAppearAndRemovedOnesGo() throws Exception {
        UnitUnderLoad a = new UnitUnderLoad(IQN, 0);
        served.add(a.registered());
        tick();
        tick();
        assertEquals(1, history.tracked());
        UnitUnderLoad added = new UnitUnderLoad(IQN, 1);
        served.add(added.registered());
        tick();
        assertEquals(List.of(), readIops(added.unit()), "a new LUN's first sample is its baseline");
        added.read(7, 100_000);
        tick();
        assertEquals(List.of(7.0), readIops(added.unit()));
        assertEquals(2, history.tracked());

        served.remove(a.registered());
        tick();
        assertEquals(1, history.tracked(), "a removed LUN's ring goes");
        assertEquals(List.of(), readIops(a.unit()));

        UnitUnderLoad again = new UnitUnderLoad(IQN, 0); // the same number, a new unit: a new history
        served.add(again.registered());
        tick();
        assertEquals(List.of(), readIops(again.unit()));
    }
}
