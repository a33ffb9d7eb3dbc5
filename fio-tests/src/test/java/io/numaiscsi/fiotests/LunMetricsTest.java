package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The per-LUN metrics against fio's own counts: a random read/write mix of mixed block sizes on two LUNs (a file and
 * RAM), rate-limited so it runs for seconds, scraped while it runs and after. During the run every counter only grows,
 * never past what fio ends with, and each latency histogram's buckets grow with {@code le} up to its count; after it,
 * each LUN's READ and WRITE commands, their histograms' counts and their bytes equal fio's (commands fio sends outside
 * its I/O, INQUIRY or READ CAPACITY, count as op="other"). A READ beyond the end then moves the LUN's ILLEGAL REQUEST
 * counter and no READ counter.
 */
@Tag("it")
class LunMetricsTest {
    private static final long LUN_BYTES = 64L << 20;
    private static final int LUNS = 2;
    private static final long IO_BYTES_PER_JOB = 96L << 20;
    private static final Duration LIMIT = Duration.ofMinutes(4);
    private static final Pattern BUCKET = Pattern.compile(
            "^iscsi_lun_command_latency_seconds_bucket\\{([^}]*),le=\"([^\"]+)\"} (\\S+)$", Pattern.MULTILINE);

    @Test
    void perLunCountersAndHistogramsMatchFio() throws Exception {
        if (!System.getProperty("it.external.url", "").isBlank()) {
            return; // needs its own daemon with metrics
        }
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        assertTrue(
                Files.isExecutable(Path.of(fio)),
                fio + " missing: build it with fio-tests/tools/build-fio-libiscsi.sh");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(LUN_BYTES)
                .ramLun(1, LUN_BYTES)
                .daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        try (DaemonProcess daemon = DaemonProcess.start("LunMetricsTest", setup)) {
            String iqn = daemon.target().iqn();
            PromText before = awaitMetrics(metricsPort); // the endpoint opens after the portal
            assertEquals(0, before.sum("iscsi_lun_commands_total"), "no command before fio\n" + before.text());
            Path dir = DaemonProcess.logDir();
            Path job = dir.resolve("LunMetricsTest.fio");
            Path json = dir.resolve("LunMetricsTest.json");
            Files.deleteIfExists(json);
            Files.writeString(job, jobFile(daemon.target()));
            CompletableFuture<ToolRun> fioRun = CompletableFuture.supplyAsync(() -> {
                try {
                    return ToolRun.run(
                            dir.resolve("LunMetricsTest-fio.log"),
                            LIMIT,
                            List.of(fio, "--eta=never", "--output-format=json", "--output=" + json, job.toString()));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            List<PromText> during = new ArrayList<>();
            try {
                while (!fioRun.isDone()) {
                    PromText scrape = PromText.fetch(metricsPort);
                    during.add(scrape);
                    assertHistogramsConsistent(scrape, "during fio");
                    Thread.sleep(500);
                }
            } finally {
                // fio's libiscsi engine ignores SIGTERM and spins once the daemon is gone: a failed check must not
                // leave it behind
                if (!fioRun.isDone()) {
                    ProcessHandle.current()
                            .descendants()
                            .filter(p -> p.info().commandLine().orElse("").contains(job.toString()))
                            .forEach(ProcessHandle::destroyForcibly);
                }
            }
            ToolRun run = fioRun.get();
            String context = "\n" + run.describe(30) + "\n" + daemon.logTail();
            assertFalse(run.timedOut(), "fio did not finish" + context);
            assertEquals(0, run.exitCode(), "fio exit code" + context);
            PromText after = PromText.fetch(metricsPort);
            Files.writeString(dir.resolve("LunMetricsTest.metrics.txt"), after.text()); // for the record
            assertHistogramsConsistent(after, "after fio");

            JsonNode jobs = new ObjectMapper().readTree(json.toFile()).path("jobs");
            assertEquals(LUNS, jobs.size(), context);
            int scrapesWithTraffic = 0;
            for (int lun = 0; lun < LUNS; lun++) {
                JsonNode j = jobs.get(lun);
                assertEquals("lun" + lun, j.path("jobname").asText(), context);
                assertEquals(0, j.path("error").asInt(-1), context);
                for (String op : new String[] {"read", "write"}) {
                    long ios = j.path(op).path("total_ios").asLong();
                    long bytes = j.path(op).path("io_bytes").asLong();
                    assertTrue(ios > 1000, "lun" + lun + " " + op + "s: " + ios + context);
                    String[] labels = {"target=\"" + iqn + "\"", "lun=\"" + lun + "\"", "op=\"" + op + "\""};
                    String what = "lun " + lun + " " + op + ": ";
                    assertEquals(
                            ios,
                            (long) after.sumAll("iscsi_lun_commands_total", labels),
                            what + "commands\n" + after.text());
                    assertEquals(
                            ios,
                            (long) after.sumAll("iscsi_lun_command_latency_seconds_count", labels),
                            what + "histogram count");
                    assertEquals(bytes, (long) after.sumAll("iscsi_lun_bytes_total", labels), what + "bytes");
                    assertTrue(after.sumAll("iscsi_lun_command_latency_seconds_sum", labels) > 0, what + "latency sum");
                    double last = 0;
                    for (PromText scrape : during) {
                        double now = scrape.sumAll("iscsi_lun_commands_total", labels);
                        assertTrue(
                                now >= last && now <= ios,
                                what + "scraped " + now + " after " + last + ", fio ends with " + ios);
                        if (now > 0 && now < ios) {
                            scrapesWithTraffic++;
                        }
                        last = now;
                    }
                }
                String lunLabels = "lun=\"" + lun + "\"";
                assertEquals(0, after.sumAll("iscsi_lun_commands_executing", lunLabels), "nothing executing after fio");
                assertEquals(
                        0,
                        after.sumAll("iscsi_lun_check_conditions_total", lunLabels),
                        "fio's I/O ended GOOD\n" + after.text());
            }
            assertTrue(scrapesWithTraffic > 0, "no scrape caught fio halfway (" + during.size() + " scrapes)");
            assertTrue(
                    during.stream().anyMatch(s -> s.sumAll("iscsi_target_sessions", "target=\"" + iqn + "\"") >= LUNS),
                    "fio's sessions (one per job) seen while it ran");

            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                ScsiResult r = RawIo.read(c, 0, LUN_BYTES / 512, 1, Duration.ofSeconds(10));
                assertEquals(ScsiResult.CHECK_CONDITION, r.status(), "READ beyond the end");
                assertEquals(0x5, r.senseKey(), "ILLEGAL REQUEST");
            }
            PromText failed = PromText.fetch(metricsPort);
            String[] lun0 = {"target=\"" + iqn + "\"", "lun=\"0\""};
            assertEquals(
                    1,
                    failed.sumAll(
                            "iscsi_lun_check_conditions_total", lun0[0], lun0[1], "sense_key=\"illegal_request\""),
                    failed.text());
            assertEquals(
                    after.sumAll("iscsi_lun_commands_total", lun0[0], lun0[1], "op=\"read\""),
                    failed.sumAll("iscsi_lun_commands_total", lun0[0], lun0[1], "op=\"read\""),
                    "a READ refused while decoded is no executed READ");
            daemon.assertAlive();
        }
    }

    private static PromText awaitMetrics(int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return PromText.fetch(port);
            } catch (ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** Each histogram's cumulative buckets never fall as {@code le} grows, and the +Inf one is its count. */
    private static void assertHistogramsConsistent(PromText scrape, String when) {
        Matcher m = BUCKET.matcher(scrape.text());
        String series = null;
        double previous = 0;
        int histograms = 0;
        while (m.find()) {
            double count = Double.parseDouble(m.group(3));
            if (!m.group(1).equals(series)) {
                series = m.group(1);
                previous = 0;
                histograms++;
            }
            assertTrue(
                    count >= previous,
                    when + ": bucket le=" + m.group(2) + " of {" + series + "} below the one before");
            previous = count;
            if (m.group(2).equals("+Inf")) {
                String[] labels = series.split(",");
                assertEquals(
                        count,
                        scrape.sumAll("iscsi_lun_command_latency_seconds_count", labels),
                        when + ": +Inf bucket and count of {" + series + "}");
            }
        }
        assertEquals(LUNS * 3, histograms, when + ": read, write and other histograms per LUN\n" + scrape.text());
    }

    /** One job per LUN, each its own session: 60/40 random reads and writes of 4k and 64k, rate-limited to last. */
    private static String jobFile(IscsiTarget target) {
        StringBuilder sb = new StringBuilder("[global]\nioengine=libiscsi\nrw=randrw\nrwmixread=60\n"
                + "bssplit=4k/80:64k/20\niodepth=8\nrate_iops=800\nsize=" + LUN_BYTES + "\nio_size=" + IO_BYTES_PER_JOB
                + "\n");
        for (int lun = 0; lun < LUNS; lun++) {
            IscsiTarget t = new IscsiTarget(target.host(), target.port(), target.iqn(), lun);
            sb.append("\n[lun")
                    .append(lun)
                    .append("]\nfilename=")
                    .append(t.fioFilename())
                    .append('\n');
        }
        return sb.toString();
    }
}
