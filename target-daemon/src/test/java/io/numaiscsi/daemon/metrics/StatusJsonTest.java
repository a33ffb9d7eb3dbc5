package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.session.SessionTable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class StatusJsonTest {
    private static final String IQN = "iqn.2024-01.io.numaiscsi:json";
    private static final long SECOND = 1_000_000_000L;

    private final UnitUnderLoad lun0 = new UnitUnderLoad(IQN, 0);
    private final UnitUnderLoad lun1 = new UnitUnderLoad(IQN, 1);
    private final List<RegisteredLun> served =
            new CopyOnWriteArrayList<>(List.of(lun0.registered(), lun1.registered()));
    private final List<TargetDefinition> targets = new CopyOnWriteArrayList<>(List.of(new TargetDefinition(
            IQN,
            "disk <b>",
            List.of(),
            List.of(lun0.registered().definition(), lun1.registered().definition()))));
    private final StatusHistory history = new StatusHistory(() -> served, 10);
    private final StatusJson json =
            new StatusJson(() -> targets, () -> served, new SessionTable(), history, () -> 42_000);

    private JsonNode render() throws Exception {
        return new ObjectMapper().readTree(json.render());
    }

    @Test
    void targetsLunsAndTheirHistoryAsOneArrayPerSeries() throws Exception {
        history.sample(1000, SECOND);
        lun0.read(20, 80_000);
        lun0.write(10, 400_000);
        history.sample(2000, 2 * SECOND);
        history.sample(3000, 3 * SECOND); // a second with nothing done

        JsonNode status = render();
        assertEquals(42_000, status.path("time").asLong());
        assertEquals(0, status.path("sessions").size());
        JsonNode target = status.path("targets").get(0);
        assertEquals(IQN, target.path("name").asText());
        assertEquals("disk <b>", target.path("alias").asText(), "the page escapes it, the JSON carries it as it is");
        JsonNode luns = target.path("luns");
        assertEquals(2, luns.size());
        JsonNode l0 = luns.get(0);
        assertEquals(0, l0.path("id").asInt());
        assertEquals("ram", l0.path("backing").asText());
        assertEquals(1 << 20, l0.path("size").asLong());
        assertEquals(512, l0.path("block_size").asInt());
        assertEquals(0, l0.path("executing").asInt());
        JsonNode h = l0.path("history");
        assertEquals("[2000,3000]", h.path("time").toString());
        assertEquals("[20.0,0.0]", h.path("read_iops").toString());
        assertEquals("[10.0,0.0]", h.path("write_iops").toString());
        assertEquals("[15360.0,0.0]", h.path("bytes_per_s").toString());
        assertEquals(186.7, h.path("latency_mean_us").get(0).asDouble(), "rounded to 0.1 us");
        assertTrue(h.path("latency_p50_us").get(1).isNull(), "no command, no latency: a gap");
        assertTrue(h.path("latency_p99_us").get(0).asDouble() > 300, h.toString());
        assertEquals("[0.0,0.0]", luns.get(1).path("history").path("read_iops").toString());
    }

    @Test
    void aLunAddedLiveShowsBeforeItsFirstSampleAndARemovedOneGoes() throws Exception {
        UnitUnderLoad added = new UnitUnderLoad(IQN, 2);
        served.add(added.registered());
        targets.set(
                0,
                targets.get(0)
                        .withLuns(List.of(
                                lun0.registered().definition(),
                                added.registered().definition())));
        served.remove(lun1.registered());

        JsonNode luns = render().path("targets").get(0).path("luns");
        assertEquals(2, luns.size());
        assertEquals(2, luns.get(1).path("id").asInt());
        assertEquals(0, luns.get(1).path("history").path("time").size(), "not sampled yet: an empty history");
    }
}
