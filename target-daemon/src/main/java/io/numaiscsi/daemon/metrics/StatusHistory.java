package io.numaiscsi.daemon.metrics;

import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.scsi.LogicalUnit;
import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.Supplier;

/**
 * The last minutes of every LUN's rates, for the status page: {@link #sample} (once a second, from one thread) reads
 * each LUN served now into its own {@link SampleRing}. A LUN added live gets a ring at its first sample; one removed
 * loses its ring at the next, and one added again under the same number starts afresh (rings are keyed by the unit,
 * not its number). Memory is a fixed ring per LUN served.
 */
final class StatusHistory {
    /** Five minutes of one-second samples. */
    static final int DEFAULT_SAMPLES = 300;

    private final Supplier<List<RegisteredLun>> luns;
    private final int capacity;
    private final IdentityHashMap<LogicalUnit, Track> tracks = new IdentityHashMap<>();
    private final double[] sample = new double[SampleRing.Series.values().length];

    StatusHistory(Supplier<List<RegisteredLun>> luns, int capacity) {
        this.luns = luns;
        this.capacity = capacity;
    }

    private record Track(LunRates rates, SampleRing ring) {}

    /** Samples every LUN served now; {@code epochMillis} labels the sample, {@code nanos} (monotonic) times the rates. */
    synchronized void sample(long epochMillis, long nanos) {
        List<RegisteredLun> now = luns.get();
        IdentityHashMap<LogicalUnit, Boolean> served = new IdentityHashMap<>();
        for (RegisteredLun lun : now) {
            served.put(lun.unit(), Boolean.TRUE);
        }
        tracks.keySet().removeIf(unit -> !served.containsKey(unit));
        for (RegisteredLun lun : now) {
            Track t = tracks.computeIfAbsent(
                    lun.unit(), u -> new Track(new LunRates(u.counters()), new SampleRing(capacity)));
            if (t.rates().read(nanos, sample)) {
                t.ring().add(epochMillis, sample);
            }
        }
    }

    /** Reads a ring while no sample is added to it. */
    interface RingReader {
        void read(SampleRing ring) throws IOException;
    }

    /** Hands {@code unit}'s ring to {@code reader} under the history's lock; an empty ring for a unit not sampled yet. */
    synchronized void read(LogicalUnit unit, RingReader reader) throws IOException {
        Track t = tracks.get(unit);
        reader.read(t == null ? EMPTY : t.ring());
    }

    /** LUNs with a ring now. */
    synchronized int tracked() {
        return tracks.size();
    }

    private static final SampleRing EMPTY = new SampleRing(1);
}
