package io.numaiscsi.fiotests;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One run of an external initiator tool: stdout and stderr go to {@code log}, killed at the time limit. */
record ToolRun(List<String> command, int exitCode, boolean timedOut, Duration elapsed, Path log) {

    static ToolRun run(Path log, Duration limit, List<String> command) throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        boolean done = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        if (!done) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - t0);
        return new ToolRun(List.copyOf(command), done ? p.exitValue() : -1, !done, elapsed, log);
    }

    String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** The command, how it ended, and the last lines of its output: for assertion messages. */
    String describe(int tailLines) {
        return "$ " + String.join(" ", command) + "\n"
                + (timedOut
                        ? "TIMED OUT after " + elapsed.toSeconds() + " s"
                        : "exit " + exitCode + " after " + elapsed.toMillis() + " ms")
                + "; output " + log + ", last lines:\n"
                + tail(log, tailLines);
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }
}
