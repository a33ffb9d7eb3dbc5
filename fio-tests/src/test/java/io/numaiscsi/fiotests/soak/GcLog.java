package io.numaiscsi.fiotests.soak;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a daemon's GC log ({@code -Xlog:gc,safepoint:file=...:time,level,tags}) as it grows: every safepoint with its
 * total time (reaching it included: what a thread waiting on it sees), whether it was a collector's, ZGC's allocation
 * stalls, and the heap left after each collection. The same parsing serves G1, Parallel, Serial and ZGC.
 */
final class GcLog {
    /** What the log says happened. */
    enum Kind {
        GC_PAUSE,
        ALLOCATION_STALL,
        OTHER_SAFEPOINT,
        HEAP_AFTER_GC
    }

    record Event(Instant at, Kind kind, double value, String what) {}

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");
    private static final Pattern LINE = Pattern.compile("^\\[([^]]+)]\\[\\w+\\s*]\\[([\\w,+ ]+)]\\s?(.*)$");
    private static final Pattern SAFEPOINT = Pattern.compile("Safepoint \"([^\"]+)\".*Total: (\\d+) ns");
    private static final Pattern HEAP = Pattern.compile("GC\\(\\d+\\) .*?(\\d+)M(?:\\(\\d+%\\))?->(\\d+)M");
    private static final Pattern STALL = Pattern.compile("Allocation Stall \\(([^)]*)\\) ([\\d.]+)ms");

    private final Path file;
    private long offset;
    private String partial = "";

    GcLog(Path file) {
        this.file = file;
    }

    /** The events logged since the last call (a line still being written waits for the next). */
    List<Event> poll() throws IOException {
        List<Event> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        byte[] fresh;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long length = f.length();
            if (length <= offset) {
                return out;
            }
            fresh = new byte[(int) Math.min(length - offset, 64L << 20)];
            f.seek(offset);
            f.readFully(fresh);
            offset += fresh.length;
        }
        String text = partial + new String(fresh, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        partial = text.substring(end + 1);
        for (String line : text.substring(0, Math.max(0, end)).split("\n")) {
            Event e = parse(line);
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    static Event parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            return null;
        }
        Instant at;
        try {
            at = OffsetDateTime.parse(m.group(1), TIME).toInstant();
        } catch (RuntimeException e) {
            return null;
        }
        String tags = m.group(2).strip();
        String msg = m.group(3);
        if (tags.equals("safepoint")) {
            Matcher s = SAFEPOINT.matcher(msg);
            if (s.find()) {
                String op = s.group(1);
                return new Event(
                        at,
                        collectorOperation(op) ? Kind.GC_PAUSE : Kind.OTHER_SAFEPOINT,
                        Long.parseLong(s.group(2)) / 1e6,
                        op);
            }
            return null;
        }
        if (tags.equals("gc")) {
            Matcher stall = STALL.matcher(msg);
            if (stall.find()) {
                return new Event(at, Kind.ALLOCATION_STALL, Double.parseDouble(stall.group(2)), stall.group(1));
            }
            Matcher h = HEAP.matcher(msg);
            if (h.find()) {
                return new Event(at, Kind.HEAP_AFTER_GC, Double.parseDouble(h.group(2)), msg);
            }
        }
        return null;
    }

    /** A VM operation of a collector (G1..., Z..., ParallelGC..., CollectForMetadataAllocation...), not a handshake. */
    static boolean collectorOperation(String op) {
        return op.startsWith("G1")
                || op.startsWith("Z")
                || op.startsWith("Shenandoah")
                || op.contains("GC")
                || op.contains("Collect");
    }
}
