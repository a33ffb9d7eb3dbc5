package io.numaiscsi.daemon.placement;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code cache.size-per-node: auto}: an eighth of the node's free memory at start, at most 256 MiB and at least what
 * the cache's shape needs (two blocks per partition), rounded down to whole partitions.
 */
public final class CacheSizing {
    public static final long AUTO_CAP = 256L << 20;
    static final int SHARE_DIVISOR = 8;
    private static final Pattern MEM_FREE = Pattern.compile("MemFree:\\s+([0-9]+)\\s*kB");
    private static final Pattern MEM_AVAILABLE = Pattern.compile("MemAvailable:\\s+([0-9]+)\\s*kB");

    private CacheSizing() {}

    /** How the automatic size is chosen, for the start-up log. */
    public static String rule() {
        return "1/" + SHARE_DIVISOR + " of its free memory, at most " + (AUTO_CAP >> 20) + "M";
    }

    /** The automatic size for a node with {@code freeBytes} free (unknown: -1, taken as plenty). */
    public static long auto(long freeBytes, int partitions, int blockSize) {
        long unit = (long) partitions * blockSize;
        long floor = 2 * unit;
        long share = freeBytes < 0 ? AUTO_CAP : freeBytes / SHARE_DIVISOR;
        long size = Math.max(floor, Math.min(AUTO_CAP, share));
        return size / unit * unit;
    }

    /** Free memory of OS node {@code osNode} (its sysfs meminfo), or the machine's available memory; -1 unknown. */
    public static long freeBytes(int osNode) {
        Long v = read(Path.of("/sys/devices/system/node/node" + osNode + "/meminfo"), MEM_FREE);
        if (v == null) {
            v = read(Path.of("/proc/meminfo"), MEM_AVAILABLE);
        }
        return v == null ? -1 : v * 1024;
    }

    private static Long read(Path file, Pattern p) {
        try {
            Matcher m = p.matcher(Files.readString(file));
            return m.find() ? Long.parseLong(m.group(1)) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
