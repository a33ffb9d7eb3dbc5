package io.numaiscsi.fiotests.soak;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code numa-iscsi-admin} run as a process against one daemon's admin socket; each run's output in {@code admin/}. */
final class AdminCli {
    static final String MAIN_CLASS = "io.numaiscsi.admin.AdminCli";
    static final Duration LIMIT = Duration.ofSeconds(60);

    record Run(List<String> args, int exitCode, String output) {
        Run ok() {
            if (exitCode != 0) {
                throw new AssertionError(
                        "numa-iscsi-admin " + String.join(" ", args) + " exited " + exitCode + ": " + output.strip());
            }
            return this;
        }
    }

    private final SoakDaemon daemon;
    private final Path dir;
    private final Path argFile;
    private final AtomicInteger runs = new AtomicInteger();

    AdminCli(SoakDaemon daemon, Path out) throws IOException {
        this.daemon = daemon;
        this.dir = out.resolve("admin");
        Files.createDirectories(dir);
        this.argFile = dir.resolve("admin.java-args");
        Files.write(
                argFile,
                List.of(
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        "\"" + SoakDaemon.daemonClasspath().replace("\\", "\\\\") + "\""));
    }

    Run run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + argFile,
                MAIN_CLASS,
                "--socket",
                daemon.adminSocket().toString()));
        cmd.addAll(List.of(args));
        Path log = dir.resolve(daemon.name() + "-" + runs.incrementAndGet() + ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        if (!p.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(
                    "numa-iscsi-admin " + String.join(" ", args) + " did not end within " + LIMIT.toSeconds() + " s");
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Files.writeString(
                log, "$ numa-iscsi-admin " + String.join(" ", args) + "\nexit " + p.exitValue() + "\n" + output);
        return new Run(List.of(args), p.exitValue(), output);
    }
}
