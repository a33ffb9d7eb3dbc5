package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.File;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The status page rendered in headless Chromium while fio runs: the daemon's {@code /status.json} gathers a few seconds
 * of the LUN's rates, then Chromium loads {@code /} and runs its scripts; the LUN's IOPS chart must have drawn points
 * (the page writes how many into {@code data-points}) and the screenshot, saved under the test logs, must show
 * more than a blank page, with the read line's colour in it.
 */
@Tag("it")
class StatusPageTest {
    private static final long LUN_BYTES = 64L << 20;
    private static final int FIO_SECONDS = 30;
    /** Seconds of reads in the LUN's history before the page is rendered. */
    private static final int BUSY_SECONDS = 8;

    private static final Duration LIMIT = Duration.ofMinutes(3);
    /** The read line of the IOPS chart (status.html). */
    private static final int READ_COLOUR = 0x1f77b4;

    private static final Pattern IOPS_CANVAS = Pattern.compile("<canvas[^>]*\\bclass=\"iops\"[^>]*>");
    private static final Pattern POINTS = Pattern.compile("\\bdata-points=\"(\\d+)\"");

    @Test
    void theLunsIopsChartHasPointsWhileFioRuns() throws Exception {
        if (!System.getProperty("it.external.url", "").isBlank()) {
            return; // needs its own daemon with metrics
        }
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        assertTrue(
                Files.isExecutable(Path.of(fio)),
                fio + " missing: build it with fio-tests/tools/build-fio-libiscsi.sh");
        String chromium = HeadlessChromium.find();
        assertNotNull(
                chromium, "no chromium on the PATH (-Dit.chromium=PATH): bin/run-tests installs the Debian package");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup =
                DaemonProcess.Setup.fileLun(LUN_BYTES).daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        Path dir = DaemonProcess.logDir();
        try (DaemonProcess daemon = DaemonProcess.start("StatusPageTest", setup)) {
            Path job = dir.resolve("StatusPageTest.fio");
            Files.writeString(job, jobFile(daemon.target()));
            Path fioLog = dir.resolve("StatusPageTest-fio.log");
            Process fioRun = new ProcessBuilder(fio, "--eta=never", job.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(fioLog.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            try {
                renderWhileFioRuns(daemon, fioRun, fioLog, metricsPort, chromium);
            } finally {
                // fio's libiscsi engine spins on a target that went away and ignores SIGTERM: a failed test must
                // not leave it (and its job processes) behind
                fioRun.descendants().forEach(ProcessHandle::destroyForcibly);
                fioRun.destroyForcibly();
            }
        }
    }

    private static void renderWhileFioRuns(
            DaemonProcess daemon, Process fioRun, Path fioLog, int metricsPort, String chromium) throws Exception {
        Path dir = DaemonProcess.logDir();
        String page = "http://127.0.0.1:" + metricsPort + "/";
        JsonNode status = awaitHistory(metricsPort, daemon.target().iqn(), fioRun, fioLog);
        JsonNode lun = status.path("targets").path(0).path("luns").path(0);
        String initiator = status.path("sessions").path(0).path("initiator").asText();
        assertFalse(initiator.isEmpty(), "fio's session in /status.json: " + status);
        assertEquals("file", lun.path("backing").asText(), lun.toString());
        assertEquals(LUN_BYTES, lun.path("size").asLong(), lun.toString());

        HeadlessChromium browser = new HeadlessChromium(chromium, dir, "StatusPageTest");
        String dom = browser.dumpDom(page, 4000);
        Matcher canvas = IOPS_CANVAS.matcher(dom);
        assertTrue(canvas.find(), "no IOPS chart in the rendered page:\n" + dom);
        Matcher points = POINTS.matcher(canvas.group());
        assertTrue(points.find(), "the IOPS chart did not say how many points it drew: " + canvas.group());
        int drawn = Integer.parseInt(points.group(1));
        assertTrue(drawn > 0, "the IOPS chart drew no point: " + canvas.group());
        assertTrue(dom.contains(daemon.target().iqn()), "the target's name on the page");
        assertTrue(
                dom.contains("<td>" + initiator + "</td>"), "fio's session (" + initiator + ") on the page:\n" + dom);

        Path png = dir.resolve("StatusPageTest.png");
        browser.screenshot(page, png, 1200, 900, 4000);
        assertTrue(fioRun.isAlive(), "fio still ran while the page was rendered");
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, png + " is no image Java can read");
        assertEquals(1200, image.getWidth());
        assertTrue(colours(image) > 10, png + " is (nearly) one colour");
        assertTrue(pixelsNear(image, READ_COLOUR) > 50, png + ": too few pixels of the read IOPS line");

        boolean finished = fioRun.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS);
        String context = "\n" + ToolRun.tail(fioLog, 30) + "\n" + daemon.logTail();
        assertTrue(finished, "fio did not finish within " + LIMIT + context);
        assertEquals(0, fioRun.exitValue(), "fio exit code" + context);
        daemon.assertAlive();
    }

    /**
     * Waits until {@code /status.json} holds at least {@value #BUSY_SECONDS} seconds of the LUN's history with reads
     * in them and fio's session, fio still running; returns that answer.
     */
    private static JsonNode awaitHistory(int port, String iqn, Process fio, Path fioLog) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status.json"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(FIO_SECONDS - 5).toNanos();
        String last = "(no answer)";
        while (System.nanoTime() < deadline && fio.isAlive()) {
            try {
                last = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
                JsonNode status = new ObjectMapper().readTree(last);
                for (JsonNode t : status.path("targets")) {
                    if (t.path("name").asText().equals(iqn)) {
                        JsonNode lun = t.path("luns").path(0);
                        int busy = 0;
                        for (JsonNode v : lun.path("history").path("read_iops")) {
                            busy += v.asDouble() > 0 ? 1 : 0;
                        }
                        if (busy >= BUSY_SECONDS && status.path("sessions").size() > 0) {
                            return status;
                        }
                    }
                }
            } catch (ConnectException e) {
                last = e.toString(); // the endpoint opens after the portal
            }
            Thread.sleep(500);
        }
        throw new AssertionError(
                "no " + BUSY_SECONDS + " seconds of reads in /status.json while fio ran; last answer:\n" + last
                        + (fio.isAlive() ? "" : "\nfio ended:\n" + ToolRun.tail(fioLog, 30)));
    }

    /** Distinct colours in the image, counted up to a few hundred. */
    private static int colours(BufferedImage image) {
        Set<Integer> seen = new HashSet<>();
        for (int y = 0; y < image.getHeight() && seen.size() < 500; y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                seen.add(image.getRGB(x, y) & 0xffffff);
            }
        }
        return seen.size();
    }

    /** Pixels within a small distance of {@code rgb} (lines are anti-aliased). */
    private static int pixelsNear(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int p = image.getRGB(x, y);
                int d = Math.abs(((p >> 16) & 0xff) - ((rgb >> 16) & 0xff))
                        + Math.abs(((p >> 8) & 0xff) - ((rgb >> 8) & 0xff))
                        + Math.abs((p & 0xff) - (rgb & 0xff));
                n += d < 40 ? 1 : 0;
            }
        }
        return n;
    }

    /**
     * One job on LUN 0: random 4k reads and writes for {@value #FIO_SECONDS} seconds, limited to 400 reads and 150
     * writes a second (apart, so the write line does not cover the read line).
     */
    private static String jobFile(IscsiTarget target) {
        return "[global]\nioengine=libiscsi\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=4\nrate_iops=400,150\nsize="
                + LUN_BYTES + "\ntime_based=1\nruntime=" + FIO_SECONDS + "\n\n[lun0]\nfilename=" + target.fioFilename()
                + "\n";
    }
}
