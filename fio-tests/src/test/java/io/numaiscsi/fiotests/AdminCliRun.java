package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** numa-iscsi-admin run as a process against one daemon's admin socket; each run's output is logged in it-logs. */
final class AdminCliRun {
    static final Duration LIMIT = Duration.ofSeconds(60);
    static final String CLI_CLASS = "io.numaiscsi.admin.AdminCli";

    private final String testName;
    private final Path socket;
    private final AtomicInteger runs = new AtomicInteger();

    AdminCliRun(String testName, Path socket) {
        this.testName = testName;
        this.socket = socket;
    }

    /** The CLI with {@code --socket} and {@code args}. */
    ToolRun run(String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("--socket", socket.toString()));
        all.addAll(List.of(args));
        return runRaw(all);
    }

    /** The CLI with exactly {@code args}. */
    ToolRun runRaw(List<String> args) throws IOException, InterruptedException {
        Path log = DaemonProcess.logDir().resolve(testName + "-cli-" + runs.incrementAndGet() + ".log");
        return ToolRun.run(log, LIMIT, DaemonProcess.command(testName + "-cli", CLI_CLASS, args));
    }

    /** Runs the CLI and fails the test unless it exits 0; its output. */
    String ok(String... args) throws IOException, InterruptedException {
        return ok(run(args));
    }

    static String ok(ToolRun r) throws IOException {
        assertEquals(0, r.exitCode(), r.describe(20));
        return r.output();
    }
}
