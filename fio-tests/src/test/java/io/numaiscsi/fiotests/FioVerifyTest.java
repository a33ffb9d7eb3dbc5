package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaiscsi.blockdev.backstore.IoUring;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * fio's libiscsi engine writes the whole 1 GiB LUN sequentially (128k, QD16) and reads it back
 * verifying crc32c, then a 4k random-write job at QD16 does the same over 128 MiB of it.
 */
@Tag("it")
class FioVerifyTest {

    static final long LUN_BYTES = 1L << 30;
    static final long RANDOM_OFFSET = 256L << 20;
    static final long RANDOM_BYTES = 128L << 20;
    static final Duration LIMIT = Duration.ofMinutes(8);

    static String jobFile(IscsiTarget target, long lunBytes) {
        return "[global]\n"
                + "ioengine=libiscsi\n"
                + "filename=" + target.fioFilename() + "\n"
                + "verify=crc32c\n"
                + "do_verify=1\n"
                + "verify_dump=0\n"
                + "verify_state_save=0\n"
                + "\n[seq-write-128k]\n"
                + "rw=write\nbs=128k\niodepth=16\nsize=" + lunBytes + "\n"
                + "\n[rand-write-4k]\n"
                + "stonewall\n"
                + "rw=randwrite\nbs=4k\niodepth=16\noffset=" + RANDOM_OFFSET + "\nsize=" + RANDOM_BYTES + "\n";
    }

    @Test
    void writesAndVerifiesOneGibibyte() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("FioVerifyTest", LUN_BYTES)) {
            String context = assertVerifies("fio-verify", daemon.target(), daemon.lunBytes(), LIMIT, daemon::logTail);
            daemon.assertAlive();
            assertBackingIoLogged(daemon, context);
        }
    }

    /**
     * Runs {@link #jobFile} against {@code target} (logs under {@code test}-fio.*) and asserts that fio finished, found
     * no verify error, and wrote and verified every byte of both jobs. Returns fio's output and the log tail, for
     * later messages.
     */
    static String assertVerifies(
            String test, IscsiTarget target, long lunBytes, Duration limit, Supplier<String> logTail) throws Exception {
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        assertTrue(
                Files.isExecutable(Path.of(fio)),
                fio + " missing: build it with fio-tests/tools/build-fio-libiscsi.sh (bin/run-tests does)");
        Path dir = DaemonProcess.logDir();
        Path job = dir.resolve(test + "-fio.fio");
        Path json = dir.resolve(test + "-fio.json");
        Files.deleteIfExists(json);
        Files.writeString(job, jobFile(target, lunBytes));
        ToolRun run = ToolRun.run(
                dir.resolve(test + "-fio.log"),
                limit,
                List.of(fio, "--output-format=json", "--output=" + json, job.toString()));
        String context = "\n" + run.describe(30) + "\n" + logTail.get();
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
        if (!Files.exists(json)) {
            fail("fio wrote no JSON " + json + context);
        }
        JsonNode jobs = new ObjectMapper().readTree(json.toFile()).path("jobs");
        assertEquals(2, jobs.size(), "fio jobs in " + json + context);
        assertJob(jobs.get(0), "seq-write-128k", lunBytes, context);
        assertJob(jobs.get(1), "rand-write-4k", RANDOM_BYTES, context);
        return context;
    }

    /** The daemon says which backing I/O it uses; io_uring (the default, auto) wherever this host grants rings. */
    private static void assertBackingIoLogged(DaemonProcess daemon, String context) throws IOException {
        if (daemon.external()) {
            return;
        }
        String line = Files.readString(daemon.log())
                .lines()
                .filter(l -> l.contains("backing I/O: "))
                .findFirst()
                .orElse(null);
        assertTrue(line != null, "no 'backing I/O:' line in the daemon log" + context);
        String why = IoUring.unavailableReason();
        assertTrue(
                why == null ? line.contains("backing I/O: io_uring") : line.contains("backing I/O: threads"),
                line + " (io_uring unavailable here: " + why + ")" + context);
    }

    /** No error, every byte written once and read back once by the verify phase. */
    private static void assertJob(JsonNode job, String name, long bytes, String context) {
        assertEquals(name, job.path("jobname").asText(), context);
        assertEquals(0, job.path("error").asInt(-1), name + " error (errno)" + context);
        assertEquals(bytes, job.path("write").path("io_bytes").asLong(), name + " bytes written" + context);
        assertEquals(bytes, job.path("read").path("io_bytes").asLong(), name + " bytes verified" + context);
    }
}
