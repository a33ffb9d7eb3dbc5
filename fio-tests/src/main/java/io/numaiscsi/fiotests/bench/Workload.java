package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One cell of the fio matrix: access pattern, block size, queue depth per job, jobs per LUN
 * (each job is its own libiscsi session) and how many LUNs are driven at once (each LUN by its own
 * initiator name).
 */
record Workload(String name, String rw, int blockSize, int iodepth, int numjobs, int luns) {

    Workload {
        if (!rw.matches("randread|randwrite|read|write|randrw")) {
            throw new IllegalArgumentException("rw " + rw + ": not one of randread randwrite read write randrw");
        }
        if (blockSize < 512 || iodepth < 1 || numjobs < 1 || luns < 1 || luns > 2) {
            throw new IllegalArgumentException(
                    "workload " + name + ": bs >= 512, iodepth >= 1, numjobs >= 1, luns 1..2");
        }
    }

    /** Stable identifier used in file names and tables, e.g. {@code rr4k-qd32-nj1} or {@code rr4k-qd32-2lun}. */
    String id() {
        return name + "-qd" + iodepth
                + (luns > 1 ? "-" + luns + "lun" + (numjobs > 1 ? "-nj" + numjobs : "") : "-nj" + numjobs);
    }

    /** libiscsi sessions this cell opens at once. */
    int sessions() {
        return numjobs * luns;
    }

    boolean randomRead4k() {
        return rw.equals("randread") && blockSize == 4096;
    }

    boolean sequentialRead512k() {
        return rw.equals("read") && blockSize == 512 * 1024;
    }

    /** Parses {@code name rw bs iodepth numjobs luns}; bs takes a k/m suffix (binary). */
    static Workload parseLine(String line) {
        String[] f = line.trim().split("\\s+", -1);
        if (f.length != 6) {
            throw new IllegalArgumentException(
                    "matrix line \"" + line + "\": want 6 fields: name rw bs iodepth numjobs luns");
        }
        try {
            return new Workload(
                    f[0],
                    f[1],
                    parseSize(f[2]),
                    Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("matrix line \"" + line + "\": " + e.getMessage(), e);
        }
    }

    /** The matrix text: one workload per line; blank lines and {@code #} comments are skipped. */
    static List<Workload> parseMatrix(List<String> lines) {
        List<Workload> out = new ArrayList<>();
        for (String raw : lines) {
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
            if (!line.isEmpty()) {
                out.add(parseLine(line));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("matrix has no workloads");
        }
        return out;
    }

    static List<Workload> readMatrix(Path file) throws IOException {
        return parseMatrix(Files.readAllLines(file));
    }

    static int parseSize(String s) {
        String t = s.toLowerCase(Locale.ROOT);
        int mult = 1;
        if (t.endsWith("k")) {
            mult = 1024;
        } else if (t.endsWith("m")) {
            mult = 1024 * 1024;
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Math.multiplyExact(Integer.parseInt(t), mult);
    }
}
