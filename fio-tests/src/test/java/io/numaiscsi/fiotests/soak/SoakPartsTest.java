package io.numaiscsi.fiotests.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's parsing and arithmetic, without a daemon (the {@code test} phase). */
class SoakPartsTest {

    private static LatencyHistogram histogram(double... cumulative) {
        return new LatencyHistogram(new double[] {0.001, 0.002, 0.005, Double.POSITIVE_INFINITY}, cumulative);
    }

    @Test
    void quantilesInterpolateWithinABucketAsPrometheusDoes() {
        LatencyHistogram h = histogram(50, 90, 100, 100);
        assertEquals(0.001, h.quantile(0.5), 1e-12);
        assertEquals(0.0015, h.quantile(0.7), 1e-12); // 20 of the 40 in (1 ms, 2 ms]
        assertEquals(0.005, h.quantile(1.0), 1e-12);
        assertTrue(Double.isNaN(histogram(0, 0, 0, 0).quantile(0.99)));
    }

    @Test
    void aQuantileInTheInfiniteBucketIsTheHighestFiniteBound() {
        assertEquals(0.005, histogram(10, 10, 10, 100).quantile(0.99), 1e-12);
    }

    @Test
    void intervalsAreDifferencesAndACounterResetStartsFromZero() {
        LatencyHistogram before = histogram(10, 20, 30, 30);
        LatencyHistogram now = histogram(15, 30, 45, 46);
        assertEquals(16, now.minus(before).count());
        LatencyHistogram afterRestart = histogram(1, 2, 3, 3);
        assertSame(afterRestart, afterRestart.minus(before));
        assertEquals(19, now.minus(before).plus(afterRestart).count());
        assertEquals(3, LatencyHistogram.EMPTY.plus(afterRestart).count());
    }

    @Test
    void gcLogLinesOfG1AndZgcAreRead() {
        GcLog.Event young = GcLog.parse("[2026-11-28T02:26:29.858+0000][info][gc       ] GC(0) Pause Young (Normal) "
                + "(G1 Evacuation Pause) 24M->6M(64M) 4.302ms");
        assertEquals(GcLog.Kind.HEAP_AFTER_GC, young.kind());
        assertEquals(6, young.value());
        GcLog.Event safepoint = GcLog.parse("[2026-11-28T02:26:29.858+0000][info][safepoint] Safepoint "
                + "\"G1CollectForAllocation\", Time since last: 29588714 ns, Reaching safepoint: 3508 ns, Cleanup: 5145 ns, "
                + "At safepoint: 4365425 ns, Total: 4374078 ns");
        assertEquals(GcLog.Kind.GC_PAUSE, safepoint.kind());
        assertEquals(4.374078, safepoint.value(), 1e-9);
        assertEquals(1795832789858L, safepoint.at().toEpochMilli());
        GcLog.Event handshake = GcLog.parse(
                "[2026-11-28T02:26:30.200+0000][info][safepoint] Safepoint \"Cleanup\", "
                        + "Time since last: 1 ns, Reaching safepoint: 310871 ns, Cleanup: 1 ns, At safepoint: 15735 ns, Total: 359238 ns");
        assertEquals(GcLog.Kind.OTHER_SAFEPOINT, handshake.kind());
        GcLog.Event zgc = GcLog.parse("[2026-11-28T02:26:30.218+0000][info][gc       ] GC(0) Garbage Collection "
                + "(Allocation Stall) 64M(100%)->20M(31%)");
        assertEquals(20, zgc.value());
        GcLog.Event stall =
                GcLog.parse("[2026-11-28T02:26:30.210+0000][info][gc       ] Allocation Stall (main) 12.891ms");
        assertEquals(GcLog.Kind.ALLOCATION_STALL, stall.kind());
        assertEquals(12.891, stall.value(), 1e-9);
        assertTrue(GcLog.collectorOperation("ZMarkStart"));
        assertFalse(GcLog.collectorOperation("HandshakeAllThreads"));
        assertNull(GcLog.parse("[2026-11-28T02:26:29.785+0000][info][gc] Using G1"));
    }

    @Test
    void gcLogIsReadAsItGrowsLineByLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("gc.log");
        GcLog log = new GcLog(f);
        assertTrue(log.poll().isEmpty(), "no file yet");
        String line = "[2026-11-28T02:26:29.858+0000][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) "
                + "24M->6M(64M) 4.302ms\n";
        Files.writeString(f, line + line.substring(0, 30));
        assertEquals(1, log.poll().size(), "the unfinished line waits");
        Files.writeString(f, line.substring(30), StandardOpenOption.APPEND);
        assertEquals(1, log.poll().size());
        assertTrue(log.poll().isEmpty());
    }

    @Test
    void prometheusTextIsParsedWithItsLabels() {
        PromScrape s = PromScrape.parse("# HELP x\n"
                + "iscsi_lun_commands_total{lun=\"0\",op=\"read\",target=\"iqn.a:b\"} 12402.0\n"
                + "iscsi_lun_commands_total{lun=\"0\",op=\"write\",target=\"iqn.a:b\"} 8.0\n"
                + "iscsi_lun_command_latency_seconds_bucket{lun=\"0\",op=\"read\",target=\"iqn.a:b\",le=\"+Inf\"} 3\n"
                + "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"} 1.6777216E7\n");
        assertEquals(12410, s.sum("iscsi_lun_commands_total"));
        assertEquals(8, s.sum("iscsi_lun_commands_total", x -> x.label("op").equals("write")));
        assertEquals(
                "+Inf",
                s.named("iscsi_lun_command_latency_seconds_bucket").get(0).label("le"));
        assertEquals(16, s.sum("jvm_memory_used_bytes", x -> x.label("area").equals("heap")) / (1 << 20));
        assertTrue(Double.isNaN(s.sum("no_such_metric")));
    }

    @Test
    void roundsStayInTheirSlotAndTheirJobFileVerifies() {
        Random r = new Random(7);
        for (int i = 0; i < 200; i++) {
            FioRound.Job j = FioRound.writeJob(r, 3);
            assertEquals(3 * FioRound.SLOT_BYTES, j.offset());
            assertTrue(
                    j.bytes() >= 4L << 20 && j.bytes() <= FioRound.SLOT_BYTES && j.bytes() % (1 << 20) == 0,
                    j.describe());
        }
        FioRound.Job j =
                new FioRound.Job(FioRound.Type.WRITE_VERIFY, 1, FioRound.SLOT_BYTES, 12L << 20, false, "4k", 8, 42);
        String file = FioRound.jobFile(j, "iscsi://127.0.0.1:3260/iqn.2026-11.x:y/0", "iqn.2026-11.x:ini");
        assertTrue(file.contains("filename=iscsi\\://127.0.0.1\\:3260/iqn.2026-11.x\\:y/0\n"), file);
        assertTrue(
                file.contains("thread=1\n")
                        && file.contains("rw=randwrite\n")
                        && file.contains("verify=crc32c\n")
                        && file.contains("randseed=42\n")
                        && file.contains("rate_iops=")
                        && !file.contains("verify_only"),
                file);
        String again = FioRound.jobFile(j.verifyOnly(), "iscsi://h:1/t/0", "i");
        assertTrue(again.contains("verify_only=1\n")
                && again.contains("randseed=42\n")
                && again.contains("size=12582912\n"));
        String large = FioRound.jobFile(
                new FioRound.Job(FioRound.Type.WRITE_VERIFY, 0, 0, 128L << 20, true, "4k-1m", 32, 1),
                "iscsi://h:1/t/0",
                "i");
        assertTrue(large.contains("bsrange=4k-1m\n") && large.contains("rate=" + FioRound.LARGE_BLOCK_RATE), large);
    }

    @Test
    void fioVerifyFailuresAreRecognised() {
        assertTrue(FioRound.verifyFailure("verify: bad magic header 7d40, wanted acca at file x offset 1, length 2"));
        assertTrue(FioRound.verifyFailure("crc32c: verify failed at file x offset 4096, length 4096"));
        assertFalse(FioRound.verifyFailure("w: (groupid=0, jobs=1): err= 0: pid=1"));
        assertEquals("{\"a\":1}", FioRound.jsonPart("fio: some message\n{\"a\":1}"));
    }

    @Test
    void theScheduleSqueezesForShortRunsAndKeepsTheReleaseScheduleFromTenMinutes() {
        SoakSettings ci = SoakSettings.forDuration(Duration.ofMinutes(5), Path.of("x"), "fio");
        assertEquals(Duration.ofSeconds(20), ci.chaosEvery());
        assertEquals(Duration.ofSeconds(100), ci.restartEvery());
        assertSame(SoakSettings.Bounds.SHORT, ci.bounds());
        SoakSettings release = SoakSettings.forDuration(Duration.ofHours(2), Path.of("x"), "fio");
        assertEquals(Duration.ofMinutes(1), release.chaosEvery());
        assertEquals(Duration.ofMinutes(10), release.restartEvery());
        assertEquals(Duration.ofMinutes(10), release.warmup());
        assertEquals(Duration.ofHours(1), release.latencyWindow());
        assertSame(SoakSettings.Bounds.RELEASE, release.bounds());
        assertEquals(
                Duration.ofMinutes(5),
                SoakSettings.forDuration(Duration.ofMinutes(15), Path.of("x"), "fio")
                        .latencyWindow());
    }

    @Test
    void mediansOfOddAndEvenCounts() {
        assertEquals(2, SoakVerdict.median(new double[] {3, 1, 2}));
        assertEquals(2.5, SoakVerdict.median(new double[] {4, 1, 2, 3}));
        assertTrue(Double.isNaN(SoakVerdict.median(new double[0])));
    }

    @Test
    void theTailJudgedIsP999OnlyWhenFourFullQueuesLieBeyondIt() {
        assertEquals(0.999, SoakVerdict.tailQuantile(1_000_000));
        assertEquals(0.999, SoakVerdict.tailQuantile(128_000));
        assertEquals(0.99, SoakVerdict.tailQuantile(12_800), 1e-12);
        assertEquals(0.9, SoakVerdict.tailQuantile(1_280), 1e-12);
        assertTrue(SoakVerdict.tailQuantile(1_000) < SoakVerdict.LOWEST_TAIL);
        assertEquals("p99.9", SoakVerdict.quantileName(0.999));
        assertEquals("p98.9", SoakVerdict.quantileName(SoakVerdict.tailQuantile(11_867)));
        assertEquals("p99", SoakVerdict.quantileName(0.99));
        assertEquals("p90", SoakVerdict.quantileName(0.9));
    }

    @Test
    void aRoundKilledAsItStartsIsKilledNotAnIoError(@TempDir Path dir) throws Exception {
        Path fio = dir.resolve("slow-fio");
        Files.writeString(fio, "#!/bin/sh\nsleep 30\n");
        Files.setPosixFilePermissions(fio, PosixFilePermissions.fromString("rwx------"));
        FioRound round = new FioRound(FioRound.writeJob(new Random(1), 0), dir, "r1");
        round.kill(); // the restart's pause came between the round's start and its fio's
        FioRound.Result r = round.run(fio.toString(), "iscsi://127.0.0.1:1/t/0", "i", Duration.ofSeconds(20));
        assertEquals(FioRound.Outcome.KILLED, r.outcome(), r.detail());
        assertFalse(Files.exists(dir.resolve("r1.json")), "fio left no JSON");
    }
}
