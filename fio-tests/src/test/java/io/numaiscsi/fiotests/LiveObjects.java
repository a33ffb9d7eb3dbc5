package io.numaiscsi.fiotests;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Live instances of a class in a running JVM: {@code jcmd PID GC.class_histogram}, which collects first. */
final class LiveObjects {
    private LiveObjects() {}

    static long count(long pid, String className) throws IOException, InterruptedException {
        ToolRun jcmd = ToolRun.run(
                DaemonProcess.logDir().resolve("jcmd-" + pid + "-histogram.txt"),
                Duration.ofSeconds(60),
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid),
                        "GC.class_histogram"));
        if (jcmd.exitCode() != 0) {
            throw new IOException("jcmd GC.class_histogram failed: " + jcmd.describe(20));
        }
        return countIn(jcmd.output(), className);
    }

    /** The instance count of {@code className} in a class histogram ("num: #instances #bytes name"), 0 if absent. */
    static long countIn(String histogram, String className) {
        for (String line : histogram.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":") && f[3].equals(className)) {
                return Long.parseLong(f[1]);
            }
        }
        return 0;
    }
}
