package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * kill -9 in the middle of a write phase: {@link #WRITERS} sessions overwrite their own LBA ranges with FUA WRITEs
 * (each block's content names the writer, LBA and generation), logging every acknowledged write. The daemon is killed
 * with SIGKILL mid-stream and restarted on the same data dir; then every LBA must hold its last acknowledged write, or
 * the write that was in flight at the kill (never anything older, never garbage).
 */
@Tag("it")
class KillDuringWriteTest {
    static final long LUN_BYTES = 64L << 20;
    static final int WRITERS = 4;
    static final int BLOCKS_PER_WRITE = 8;
    static final int LBAS_PER_WRITER = 4096; // 2 MiB each, rewritten in generations
    static final Duration WRITE_PHASE = Duration.ofSeconds(4);
    static final Duration ANSWER = Duration.ofSeconds(10);

    /** One writer's log: LBA -> generation last acknowledged, and the one in flight (-1 none). */
    static final class Log {
        final Map<Long, Integer> acked = new ConcurrentHashMap<>();
        volatile long inFlightLba = -1;
        volatile int inFlightGeneration = -1;
        volatile int writes;
    }

    static byte[] content(int writer, long lba, int generation) {
        byte[] b = new byte[BLOCKS_PER_WRITE * RawIo.BLOCK];
        for (int i = 0; i < b.length; i += 16) {
            long block = lba + i / RawIo.BLOCK;
            long v1 = (long) writer << 48 | block;
            long v2 = (long) generation << 32 | (i % RawIo.BLOCK);
            for (int k = 0; k < 8; k++) {
                b[i + k] = (byte) (v1 >>> (56 - 8 * k));
                b[i + 8 + k] = (byte) (v2 >>> (56 - 8 * k));
            }
        }
        return b;
    }

    @Test
    void everyAcknowledgedFuaWriteSurvivesKillMinus9() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        try (RestartableDaemon daemon = RestartableDaemon.start("KillDuringWriteTest", LUN_BYTES)) {
            Log[] logs = new Log[WRITERS];
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                logs[w] = new Log();
                int writer = w;
                writers.add(pool.submit(() -> write(daemon.target(), writer, logs[writer])));
            }
            Thread.sleep(WRITE_PHASE.toMillis());
            for (Log l : logs) {
                assertTrue(l.writes > 0, "a writer acknowledged nothing before the kill\n" + daemon.logTail());
            }
            int exit = daemon.killAndRestart();
            assertEquals(137, exit, "SIGKILL exit code");
            for (Future<?> f : writers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
            int total = 0;
            int checked = 0;
            int inFlightLanded = 0;
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                RawIo.testUnitReady(c, 0, ANSWER);
                for (int w = 0; w < WRITERS; w++) {
                    Log log = logs[w];
                    total += log.writes;
                    for (Map.Entry<Long, Integer> e : log.acked.entrySet()) {
                        long lba = e.getKey();
                        ScsiResult r = RawIo.read(c, 0, lba, BLOCKS_PER_WRITE, ANSWER);
                        assertEquals(ScsiResult.GOOD, r.status(), r + "\n" + daemon.logTail());
                        if (Arrays.equals(content(w, lba, e.getValue()), r.data())) {
                            checked++;
                            continue;
                        }
                        if (lba == log.inFlightLba
                                && Arrays.equals(content(w, lba, log.inFlightGeneration), r.data())) {
                            inFlightLanded++;
                            continue;
                        }
                        fail("writer " + w + " LBA " + lba + ": acknowledged generation " + e.getValue()
                                + " lost after kill -9 (" + describe(r.data()) + ")\n" + daemon.logTail());
                    }
                }
            }
            System.out.println("KillDuringWriteTest: " + total + " FUA writes acknowledged before SIGKILL, " + checked
                    + " LBAs verified after restart (" + inFlightLanded + " held the in-flight write)");
            daemon.assertAlive();
        }
    }

    static String describe(byte[] b) {
        long v1 = 0;
        long v2 = 0;
        for (int k = 0; k < 8; k++) {
            v1 = v1 << 8 | (b[k] & 0xff);
            v2 = v2 << 8 | (b[8 + k] & 0xff);
        }
        return "found writer " + (v1 >>> 48) + " block " + (v1 & 0xffffffffffffL) + " generation " + (v2 >>> 32);
    }

    /** Overwrites its range in generations until the connection dies with the daemon. */
    static Void write(IscsiTarget target, int writer, Log log) throws IOException {
        long base = (long) writer * LBAS_PER_WRITER;
        try (TestConnection c = TestConnection.loggedIn(target)) {
            for (int generation = 1; ; generation++) {
                for (long lba = base; lba < base + LBAS_PER_WRITER; lba += BLOCKS_PER_WRITE) {
                    log.inFlightLba = lba;
                    log.inFlightGeneration = generation;
                    ScsiResult r;
                    try {
                        r = RawIo.write(c, 0, lba, content(writer, lba, generation), true, ANSWER);
                    } catch (IOException | AssertionError e) {
                        return null; // the daemon is gone: this write was never acknowledged
                    }
                    if (r.status() != ScsiResult.GOOD) {
                        fail("writer " + writer + ": FUA WRITE at " + lba + " failed before the kill: " + r);
                    }
                    log.acked.put(lba, generation);
                    log.writes++;
                }
            }
        } catch (IOException e) {
            return null;
        }
    }
}
