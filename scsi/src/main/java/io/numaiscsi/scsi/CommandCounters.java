package io.numaiscsi.scsi;

import io.numaiscsi.counters.PerThreadCounters;
import io.numaiscsi.counters.SingleWriterCounters;

/**
 * What one logical unit's commands did, for the metrics: commands and bytes by {@link Op}, a latency histogram with
 * fixed buckets per op, commands executing now, CHECK CONDITIONs by sense key. One per unit, made with it.
 *
 * <p>Commands are counted on the unit's thread, the one writer ({@link #started}, {@link #completed}):
 * {@link SingleWriterCounters}, no lock, nothing allocated. CHECK CONDITIONs may also come from a connection's thread (a
 * CDB refused while it is decoded), so each thread counts those in cells of its own ({@link PerThreadCounters}).
 * Readers on other threads see each value as of some recent moment.
 */
public final class CommandCounters {
    /** How a command is counted. */
    public enum Op {
        READ,
        WRITE,
        OTHER;

        static Op of(CommandKind kind) {
            if (kind == CommandKind.READ) {
                return READ;
            }
            if (kind == null) { // refused while decoded
                return OTHER;
            }
            return switch (kind) {
                // every command that writes the initiator's blocks (blocks x block size of them) to the medium
                case WRITE, WRITE_AND_VERIFY, WRITE_ATOMIC, ORWRITE, COMPARE_AND_WRITE -> WRITE;
                default -> OTHER;
            };
        }
    }

    /** Upper bounds of the latency buckets in nanoseconds, 50 us to 1 s; one more bucket holds everything slower. */
    private static final long[] BOUNDS_NANOS = {
        50_000,
        100_000,
        200_000,
        300_000,
        500_000,
        750_000,
        1_000_000,
        1_500_000,
        2_000_000,
        3_000_000,
        5_000_000,
        7_500_000,
        10_000_000,
        20_000_000,
        50_000_000,
        100_000_000,
        200_000_000,
        500_000_000,
        1_000_000_000
    };

    private static final int BUCKETS = BOUNDS_NANOS.length + 1;
    private static final int OPS = Op.values().length;

    // the unit thread's counters: per op, commands, bytes, latency sum and buckets; then commands started
    private static final int COMMANDS = 0;
    private static final int BYTES = OPS;
    private static final int LATENCY_SUM = 2 * OPS;
    private static final int LATENCY_BUCKETS = 3 * OPS;
    private static final int STARTED = LATENCY_BUCKETS + OPS * BUCKETS;

    private final SingleWriterCounters counts = new SingleWriterCounters(STARTED + 1);
    private final PerThreadCounters checkConditions = new PerThreadCounters(16);

    /** A command starts executing on the unit's thread. */
    public void started() {
        counts.increment(STARTED);
    }

    /**
     * {@code task} completed on the unit's thread, {@code latencyNanos} after it arrived. Bytes are those a command that
     * ended GOOD moved (a READ's data-in, a WRITE's data-out).
     */
    public void completed(ScsiTask task, long latencyNanos) {
        int op = Op.of(task.kind).ordinal();
        counts.increment(COMMANDS + op);
        int status = task.status();
        if (status == ScsiStatus.GOOD && op != Op.OTHER.ordinal() && task.unit != null) {
            counts.add(BYTES + op, task.blocks * task.unit.blockSize);
        }
        long nanos = Math.max(0, latencyNanos);
        counts.add(LATENCY_SUM + op, nanos);
        counts.increment(LATENCY_BUCKETS + op * BUCKETS + bucket(nanos));
        if (status == ScsiStatus.CHECK_CONDITION) {
            checkCondition(task);
        }
    }

    /** {@code task} ended with CHECK CONDITION outside the unit's thread, or without executing; any thread. */
    public void checkCondition(ScsiTask task) {
        if (task.senseLength() > 0) {
            checkConditions.increment(SenseData.senseKey(task.senseBuffer()));
        }
    }

    private static int bucket(long nanos) {
        int i = 0;
        while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
            i++;
        }
        return i;
    }

    /** Commands of {@code op} completed so far. */
    public long commands(Op op) {
        return counts.get(COMMANDS + op.ordinal());
    }

    /** Bytes moved by {@code op} commands that ended GOOD (0 for {@link Op#OTHER}). */
    public long bytes(Op op) {
        return counts.get(BYTES + op.ordinal());
    }

    /** Commands started and not completed yet (never negative). */
    public long executing() {
        long done = 0;
        for (int i = 0; i < OPS; i++) {
            done += counts.get(COMMANDS + i);
        }
        return Math.max(0, counts.get(STARTED) - done);
    }

    /** CHECK CONDITIONs with sense key {@code key} (0..15). */
    public long checkConditions(int key) {
        return checkConditions.get(key);
    }

    /** Upper bounds of the latency buckets but the last (which has none), in seconds. */
    public static double[] latencyBoundsSeconds() {
        double[] s = new double[BOUNDS_NANOS.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = BOUNDS_NANOS[i] / 1e9;
        }
        return s;
    }

    /** Commands of {@code op} per latency bucket (not cumulative), the slowest bucket last. */
    public long[] latencyBuckets(Op op) {
        long[] out = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            out[i] = counts.get(LATENCY_BUCKETS + op.ordinal() * BUCKETS + i);
        }
        return out;
    }

    public long latencySumNanos(Op op) {
        return counts.get(LATENCY_SUM + op.ordinal());
    }
}
