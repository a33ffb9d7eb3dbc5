package io.numaiscsi.fiotests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Live instances of a class in a running JVM: {@code jcmd PID GC.class_histogram}, which collects first. */
final class LiveObjects {
    private LiveObjects() {}

    static long count(long pid, String className) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid),
                        "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " GC.class_histogram failed:\n" + out);
        }
        return countIn(out, className);
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
