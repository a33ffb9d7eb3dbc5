package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time from procfs: a whole process ({@code /proc/PID/stat}, all threads) and the host ({@code /proc/stat}). */
final class ProcStat {
    private ProcStat() {}

    /**
     * utime + stime in clock ticks from a {@code /proc/PID/stat} line. The comm field (2) may hold
     * spaces and parentheses, so fields are counted after the last ')': state is field 3, utime 14, stime 15.
     */
    static long processTicks(String statLine) {
        int close = statLine.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/PID/stat line: " + statLine);
        }
        String[] f = statLine.substring(close + 1).trim().split("\\s+", -1);
        // f[0] is field 3 (state), so field n is f[n - 3]
        if (f.length < 13) {
            throw new IllegalArgumentException("short /proc/PID/stat line: " + statLine);
        }
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    static long processTicks(long pid) throws IOException {
        return processTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    }

    static boolean alive(long pid) {
        return Files.exists(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /** {busy, total} jiffies from the aggregate {@code cpu} line of /proc/stat. */
    static long[] hostTicks(String procStat) {
        for (String line : procStat.split("\n", -1)) {
            if (line.startsWith("cpu ")) {
                String[] f = line.trim().split("\\s+", -1);
                long busy = 0;
                long total = 0;
                // user nice system idle iowait irq softirq steal; guest time is already in user
                for (int i = 1; i <= 8 && i < f.length; i++) {
                    long v = Long.parseLong(f[i]);
                    total += v;
                    if (i != 4 && i != 5) {
                        busy += v;
                    }
                }
                return new long[] {busy, total};
            }
        }
        throw new IllegalArgumentException("no aggregate cpu line in /proc/stat");
    }

    static long[] hostTicks() throws IOException {
        return hostTicks(Files.readString(Path.of("/proc/stat")));
    }
}
