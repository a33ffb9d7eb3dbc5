package io.numaiscsi.fiotests;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Renders a page in headless Chromium (Debian package {@code chromium}, installed by bin/run-tests): its DOM after the
 * page's scripts ran for {@code virtualMillis} of virtual time, or a screenshot. Each run has its own profile
 * directory under the test logs, so nothing is read from or left in a home directory; Chromium's own chatter goes to
 * a log.
 */
final class HeadlessChromium {
    private static final Duration LIMIT = Duration.ofSeconds(90);

    private final String binary;
    private final Path logDir;
    private final String name;
    private int runs;

    HeadlessChromium(String binary, Path logDir, String name) {
        this.binary = binary;
        this.logDir = logDir;
        this.name = name;
    }

    /** The Chromium to use: {@code -Dit.chromium}, else {@code chromium} on the PATH; null when there is none. */
    static String find() {
        String configured = System.getProperty("it.chromium", "");
        if (!configured.isBlank()) {
            return Files.isExecutable(Path.of(configured)) ? configured : null;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, "chromium");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /** The DOM of {@code url} after {@code virtualMillis} of virtual time. */
    String dumpDom(String url, int virtualMillis) throws IOException, InterruptedException {
        Path out = logDir.resolve(name + "-dom-" + (runs + 1) + ".html");
        run(out, List.of("--virtual-time-budget=" + virtualMillis, "--dump-dom", url));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** Saves {@code url} as a PNG of {@code width} x {@code height} after {@code virtualMillis} of virtual time. */
    void screenshot(String url, Path png, int width, int height, int virtualMillis)
            throws IOException, InterruptedException {
        Files.deleteIfExists(png);
        run(
                logDir.resolve(name + "-screenshot-" + (runs + 1) + ".out"),
                List.of(
                        "--virtual-time-budget=" + virtualMillis,
                        "--window-size=" + width + "," + height,
                        "--hide-scrollbars",
                        "--screenshot=" + png,
                        url));
    }

    private void run(Path stdout, List<String> args) throws IOException, InterruptedException {
        runs++;
        Path log = logDir.resolve(name + "-chromium-" + runs + ".log");
        Path profile = logDir.resolve(name + "-chromium-profile");
        List<String> cmd = new ArrayList<>(List.of(
                binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile));
        cmd.addAll(args);
        Files.createDirectories(logDir);
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(stdout.toFile())
                .redirectError(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        if (!p.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            throw new IOException("chromium did not finish within " + LIMIT.toSeconds() + " s: " + String.join(" ", cmd)
                    + "\n" + ToolRun.tail(log, 20));
        }
        if (p.exitValue() != 0) {
            throw new IOException(
                    "chromium exit " + p.exitValue() + ": " + String.join(" ", cmd) + "\n" + ToolRun.tail(log, 20));
        }
    }
}
