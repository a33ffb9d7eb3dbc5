package io.numaiscsi.daemon.metrics;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.session.SessionInfo;
import io.numaiscsi.session.SessionTable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@code /status.json}, what the status page shows: each target served now with its LUNs (backing, path, size as
 * served, block size, commands executing, and the {@link StatusHistory} of its rates as one array per series, oldest
 * first), and the open sessions (initiator, address, target). No secrets: CHAP and access lists are not in it.
 */
final class StatusJson {
    private static final JsonFactory JSON = new JsonFactory();

    private final Supplier<List<TargetDefinition>> targets;
    private final Supplier<List<RegisteredLun>> luns;
    private final SessionTable sessions;
    private final StatusHistory history;
    private final LongSupplier epochMillis;

    StatusJson(
            Supplier<List<TargetDefinition>> targets,
            Supplier<List<RegisteredLun>> luns,
            SessionTable sessions,
            StatusHistory history,
            LongSupplier epochMillis) {
        this.targets = targets;
        this.luns = luns;
        this.sessions = sessions;
        this.history = history;
        this.epochMillis = epochMillis;
    }

    byte[] render() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("time", epochMillis.getAsLong());
            g.writeArrayFieldStart("targets");
            List<RegisteredLun> served = luns.get();
            for (TargetDefinition t : targets.get()) {
                writeTarget(g, t, served);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("sessions");
            for (SessionInfo s : sessions.describe()) {
                g.writeStartObject();
                g.writeStringField("type", s.type());
                g.writeStringField("target", s.target());
                g.writeStringField("initiator", s.initiatorName());
                g.writeStringField("address", s.address());
                g.writeNumberField("tsih", s.tsih());
                g.writeNumberField("commands_in_flight", s.commandsInFlight());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    private void writeTarget(JsonGenerator g, TargetDefinition t, List<RegisteredLun> served) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", t.name());
        if (t.alias() != null) {
            g.writeStringField("alias", t.alias());
        }
        // the last registered wins: a LUN removed and added again may linger until its commands drain
        Map<Integer, RegisteredLun> byId = new LinkedHashMap<>();
        for (RegisteredLun r : served) {
            if (r.target().equals(t.name())) {
                byId.put(r.definition().id(), r);
            }
        }
        g.writeArrayFieldStart("luns");
        for (LunDefinition lun : t.luns()) {
            RegisteredLun r = byId.get(lun.id());
            if (r != null) {
                writeLun(g, r);
            }
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private void writeLun(JsonGenerator g, RegisteredLun r) throws IOException {
        LunDefinition lun = r.definition();
        g.writeStartObject();
        g.writeNumberField("id", lun.id());
        g.writeStringField("backing", lun.backing().name().toLowerCase(Locale.ROOT));
        if (lun.path() != null) {
            g.writeStringField("path", lun.path().toString());
        }
        if (lun.rbd() != null) {
            g.writeStringField("image", lun.rbd().pool() + "/" + lun.rbd().image());
        }
        if (r.accessState() != null) {
            g.writeStringField("access", r.accessState());
        }
        g.writeNumberField("size", r.device().blockCount() * r.device().blockSize());
        g.writeNumberField("block_size", r.device().blockSize());
        g.writeNumberField("executing", r.unit().counters().executing());
        g.writeObjectFieldStart("history");
        history.read(r.unit(), ring -> writeRing(g, ring));
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void writeRing(JsonGenerator g, SampleRing ring) throws IOException {
        g.writeArrayFieldStart("time");
        for (int i = 0; i < ring.size(); i++) {
            g.writeNumber(ring.time(i));
        }
        g.writeEndArray();
        for (SampleRing.Series s : SampleRing.Series.values()) {
            g.writeArrayFieldStart(s.json);
            for (int i = 0; i < ring.size(); i++) {
                double v = ring.value(i, s);
                if (Double.isNaN(v)) {
                    g.writeNull(); // no command that second: a gap, not a zero latency
                } else {
                    g.writeNumber(Math.round(v * 10) / 10.0);
                }
            }
            g.writeEndArray();
        }
    }
}
