package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Connections move from the login thread to their target's LUN thread, and commands for the other LUNs
 * hop to those LUNs' threads: under concurrent load from several sessions on three LUNs, no command may
 * be lost or answered twice (fio would hang or fail its crc32c verify), in both event models.
 */
@Tag("it")
class EventModelHandOffTest {
    private static final long LUN_BYTES = 96L << 20;
    private static final int JOBS_PER_LUN = 2;
    private static final int LUNS = 3;
    private static final Duration LIMIT = Duration.ofMinutes(5);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PER_LUN", "CENTRALIZED"})
    void concurrentSessionsOnSeveralLunsLoseNoCommand(String model) throws Exception {
        if (!System.getProperty("it.external.url", "").isBlank()) {
            return; // needs its own daemon with three LUNs
        }
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(LUN_BYTES)
                .ramLun(1, LUN_BYTES)
                .ramLun(2, LUN_BYTES)
                .daemonArgs("--event-model", model, "--metrics", "127.0.0.1:" + metricsPort);
        String name = "EventModelHandOffTest-" + model;
        try (DaemonProcess daemon = DaemonProcess.start(name, setup)) {
            Path dir = DaemonProcess.logDir();
            Path job = dir.resolve(name + ".fio");
            Path json = dir.resolve(name + ".json");
            Files.deleteIfExists(json);
            Files.writeString(job, jobFile(daemon.target()));
            ToolRun run = ToolRun.run(
                    dir.resolve(name + "-fio.log"),
                    LIMIT,
                    List.of(fio, "--eta=never", "--output-format=json", "--output=" + json, job.toString()));
            String context = "\n" + run.describe(30) + "\n" + daemon.logTail();
            assertFalse(run.timedOut(), "fio did not finish: a command was lost?" + context);
            assertEquals(0, run.exitCode(), "fio exit code" + context);

            JsonNode jobs = new ObjectMapper().readTree(json.toFile()).path("jobs");
            assertEquals(LUNS * JOBS_PER_LUN, jobs.size(), context);
            long fioCommands = 0;
            for (JsonNode j : jobs) {
                assertEquals(0, j.path("error").asInt(-1), j.path("jobname").asText() + context);
                assertTrue(
                        j.path("write").path("io_bytes").asLong() > 0,
                        j.path("jobname").asText() + " wrote nothing");
                assertEquals(
                        j.path("write").path("io_bytes").asLong(),
                        j.path("read").path("io_bytes").asLong(),
                        j.path("jobname").asText() + ": every written byte verified" + context);
                fioCommands += j.path("read").path("total_ios").asLong()
                        + j.path("write").path("total_ios").asLong();
            }

            String metrics = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            long answered = sum(metrics, "iscsi_thread_commands_total");
            long executed = sum(metrics, "iscsi_thread_executed_commands_total");
            assertTrue(answered >= fioCommands, "answered " + answered + " < fio's " + fioCommands + "\n" + metrics);
            assertEquals(answered, executed, "every executed command answered once\n" + metrics);
            long busyThreads = Pattern.compile("iscsi_thread_executed_commands_total\\{thread=\"[^\"]+\"} ([0-9.E]+)")
                    .matcher(metrics)
                    .results()
                    .filter(m -> Double.parseDouble(m.group(1)) > 0)
                    .count();
            assertEquals(
                    model.equals("PER_LUN") ? lunEventThreads(daemon) : 1,
                    busyThreads,
                    "threads that executed commands\n" + metrics);
            daemon.assertAlive();
        }
    }

    private static long sum(String metrics, String name) {
        Matcher m = Pattern.compile("^" + name + "\\{[^}]*} ([0-9.E]+)$", Pattern.MULTILINE)
                .matcher(metrics);
        double total = 0;
        while (m.find()) {
            total += Double.parseDouble(m.group(1));
        }
        return (long) total;
    }

    /** Two jobs per LUN, each its own session on its own half of the LUN: random writes of mixed sizes, then verified. */
    private static String jobFile(IscsiTarget target) {
        StringBuilder sb = new StringBuilder("[global]\nioengine=libiscsi\nrw=randwrite\nbsrange=4k-64k\n"
                + "verify=crc32c\nverify_fatal=1\nsize=" + (LUN_BYTES / JOBS_PER_LUN) + "\nio_size=24m\n");
        for (int lun = 0; lun < LUNS; lun++) {
            for (int j = 0; j < JOBS_PER_LUN; j++) {
                IscsiTarget t = new IscsiTarget(target.host(), target.port(), target.iqn(), lun);
                sb.append("\n[lun")
                        .append(lun)
                        .append("-job")
                        .append(j)
                        .append("]\n")
                        .append("filename=")
                        .append(t.fioFilename())
                        .append('\n')
                        .append("offset=")
                        .append(j * (LUN_BYTES / JOBS_PER_LUN))
                        .append('\n');
            }
        }
        return sb.toString();
    }

    /** The per-LUN model's event threads, from the daemon's log: one per LUN up to the node's cores, so 2 of 3 here. */
    private static long lunEventThreads(DaemonProcess daemon) throws IOException {
        Matcher m =
                Pattern.compile("LUN event threads per node \\[([0-9, ]+)]").matcher(Files.readString(daemon.log()));
        assertTrue(m.find(), "the daemon logs its LUN event threads\n" + daemon.logTail());
        long threads = Arrays.stream(m.group(1).split(","))
                .mapToLong(t -> Long.parseLong(t.trim()))
                .sum();
        assertEquals(
                Math.min(LUNS, Runtime.getRuntime().availableProcessors()),
                threads,
                "one thread per LUN up to the cores (one node on this machine)");
        return threads;
    }
}
