package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-node cache ({@code cache.mode: numa}, on the target's home node) in both write policies under real
 * initiators: libiscsi's conformance suite, then fio's libiscsi engine writing and crc32c-verifying
 * 640 MiB of mixed request sizes, more than the 256 MiB of cache: in write-back the dirty blocks are evicted
 * and written back under slot pressure; in write-through the sequential read-back is a scan and reads through.
 * The daemon's counters must show hits, misses, those evictions or read-throughs, and data-path touches.
 */
@Tag("it")
class CacheModesTest {

    static final long LUN_BYTES = 1L << 30;
    static final long SEQ_BYTES = 512L << 20;
    static final long RANDOM_OFFSET = 512L << 20;
    static final long RANDOM_BYTES = 128L << 20;
    static final Duration FIO_LIMIT = Duration.ofMinutes(8);

    static String cacheSection(String writePolicy) {
        return "cache: {mode: numa, size-per-node: 256M, block-size: 64K, write-policy: " + writePolicy + "}";
    }

    /** Sequential writes of 4k-1m, then random writes of 4k-256k elsewhere, each read back and verified. */
    static String jobFile(IscsiTarget target) {
        return "[global]\n"
                + "ioengine=libiscsi\n"
                + "filename=" + target.fioFilename() + "\n"
                + "verify=crc32c\n"
                + "do_verify=1\n"
                + "verify_fatal=1\n"
                + "verify_dump=0\n"
                + "verify_state_save=0\n"
                + "iodepth=16\n"
                + "\n[seq-write-mixed]\n"
                + "rw=write\nbsrange=4k-1m\nsize=" + SEQ_BYTES + "\n"
                + "\n[rand-write-mixed]\n"
                + "stonewall\n"
                + "rw=randwrite\nbsrange=4k-256k\noffset=" + RANDOM_OFFSET + "\nsize=" + RANDOM_BYTES + "\n";
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"write-through", "write-back"})
    void conformanceAndFioVerifyWithTheCacheOn(String writePolicy) throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        assertTrue(
                Files.isExecutable(Path.of(fio)),
                fio + " missing: build it with fio-tests/tools/build-fio-libiscsi.sh (bin/run-tests does)");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        String name = "CacheModesTest-" + writePolicy;
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(LUN_BYTES)
                .section(cacheSection(writePolicy))
                .section("numa: {pretend-nodes: 2}")
                .daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        try (DaemonProcess daemon = DaemonProcess.start(name, setup)) {
            Path dir = DaemonProcess.logDir();
            ConformanceRun.runAndAssert(daemon, name + "-iscsi-test-cu.log", name + "-conformance-summary.txt");
            daemon.assertAlive();

            Path job = dir.resolve(name + ".fio");
            Path json = dir.resolve(name + "-fio.json");
            Files.deleteIfExists(json);
            Files.writeString(job, jobFile(daemon.target()));
            ToolRun run = ToolRun.run(
                    dir.resolve(name + "-fio.log"),
                    FIO_LIMIT,
                    List.of(fio, "--eta=never", "--output-format=json", "--output=" + json, job.toString()));
            String context = "\n" + run.describe(30) + "\n" + daemon.logTail();
            assertFalse(run.timedOut(), "fio did not finish" + context);
            List<String> verifyErrors = run.output()
                    .lines()
                    .filter(l -> l.startsWith("verify:") || l.contains("verify failed"))
                    .collect(Collectors.toList());
            assertTrue(
                    verifyErrors.isEmpty(),
                    verifyErrors.size() + " verify errors, first: "
                            + verifyErrors.subList(0, Math.min(5, verifyErrors.size())) + context);
            assertEquals(0, run.exitCode(), "fio exit code" + context);
            JsonNode jobs = new ObjectMapper().readTree(json.toFile()).path("jobs");
            assertEquals(2, jobs.size(), "fio jobs in " + json + context);
            assertJob(jobs.get(0), "seq-write-mixed", SEQ_BYTES, context);
            assertJob(jobs.get(1), "rand-write-mixed", RANDOM_BYTES, context);

            PromText metrics = PromText.fetch(metricsPort);
            Files.writeString(dir.resolve(name + "-metrics.prom"), metrics.text());
            String counters = "\n" + metrics.cacheSummary() + daemon.logTail();
            System.out.print("[" + name + "] cache counters after the suite and fio:\n" + metrics.cacheSummary());
            // Write-through: the read-back of the sequential job is a scan larger than the cache, so its whole blocks
            // read through and take no slot. Write-back: the written blocks themselves outgrow the cache and evict.
            String outgrown = writePolicy.equals("write-back") ? "cache_evictions_total" : "cache_read_throughs_total";
            for (String counter : List.of(
                    "cache_hits_total",
                    "cache_misses_total",
                    outgrown,
                    "data_touched_bytes_total",
                    "cache_in_place_bytes_total")) {
                assertTrue(metrics.sum(counter) > 0, counter + " > 0" + counters);
            }
            assertEquals(
                    0,
                    PromText.settled(metricsPort, "cache_pinned_blocks", 0, Duration.ofSeconds(5)),
                    "no block stays pinned once the sessions are gone" + counters);
            daemon.assertAlive();
        }
    }

    /**
     * No error, (nearly) the whole range written (with mixed sizes fio may leave gaps shorter than its
     * next block), and every written byte read back by the verify phase.
     */
    private static void assertJob(JsonNode job, String name, long bytes, String context) {
        assertEquals(name, job.path("jobname").asText(), context);
        assertEquals(0, job.path("error").asInt(-1), name + " error (errno)" + context);
        long written = job.path("write").path("io_bytes").asLong();
        assertTrue(written >= bytes / 10 * 9 && written <= bytes, name + " bytes written " + written + context);
        assertEquals(written, job.path("read").path("io_bytes").asLong(), name + " bytes verified" + context);
    }
}
