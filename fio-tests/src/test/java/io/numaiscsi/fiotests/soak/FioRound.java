package io.numaiscsi.fiotests.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One fio run through the libiscsi engine on one LUN: write a slot and verify it (crc32c), verify a slot written
 * before without writing it ({@code verify_only}, the same job and seed), or read for a while (the null LUN). The
 * job's pattern, block size and depth are drawn at random: sequential or random, 4K to 1M (or a 4K-1M range), 1 to 32
 * in flight; a rate cap keeps the many LUNs from taking both cores.
 */
public final class FioRound {
    static final long SLOT_BYTES = 128L << 20;
    /** About this many writes per round, so a round takes seconds to tens of seconds whatever its block size. */
    static final long WRITES_PER_ROUND = 3072;

    static final int SMALL_BLOCK_IOPS = 300;
    static final String LARGE_BLOCK_RATE = "8m";
    static final Duration READ_ROUND = Duration.ofSeconds(10);
    static final List<String> BLOCK_SIZES = List.of("4k", "8k", "16k", "64k", "128k", "256k", "1m", "4k-1m");
    static final List<Integer> DEPTHS = List.of(1, 4, 8, 16, 32);

    /** What a round does. */
    public enum Type {
        WRITE_VERIFY,
        VERIFY_ONLY,
        READ
    }

    /** How a round ended. */
    public enum Outcome {
        OK,
        VERIFY_ERROR,
        IO_ERROR,
        KILLED,
        TIMEOUT;

        boolean failed() {
            return this != OK;
        }
    }

    /** A round's job: what it does where, with which load. */
    public record Job(
            Type type, int slot, long offset, long bytes, boolean sequential, String blockSize, int depth, long seed) {

        String rw() {
            return switch (type) {
                case READ -> sequential ? "read" : "randread";
                default -> sequential ? "write" : "randwrite";
            };
        }

        /** The same job, verified without writing (fio's verify_only: it replays the writes' offsets from the seed). */
        Job verifyOnly() {
            return new Job(Type.VERIFY_ONLY, slot, offset, bytes, sequential, blockSize, depth, seed);
        }

        String describe() {
            return type == Type.READ
                    ? String.format("%s bs=%s iodepth=%d for %d s", rw(), blockSize, depth, READ_ROUND.toSeconds())
                    : String.format(
                            "%s%s bs=%s iodepth=%d %d MiB at %d MiB (slot %d) seed %d",
                            type == Type.VERIFY_ONLY ? "verify_only of " : "",
                            rw(),
                            blockSize,
                            depth,
                            bytes >> 20,
                            offset >> 20,
                            slot,
                            seed);
        }
    }

    /** A round as it ended. */
    public record Result(
            Job job, Instant start, Instant end, Outcome outcome, long bytesWritten, long bytesRead, String detail) {}

    /** A write-and-verify job on {@code slot}, drawn from {@code random}. */
    static Job writeJob(Random random, int slot) {
        String bs = BLOCK_SIZES.get(random.nextInt(BLOCK_SIZES.size()));
        boolean sequential = random.nextBoolean();
        int depth = DEPTHS.get(random.nextInt(DEPTHS.size()));
        long typical = bs.contains("-") ? 256L << 10 : parseSize(bs);
        long bytes = Math.min(SLOT_BYTES, Math.max(4L << 20, typical * WRITES_PER_ROUND));
        bytes -= bytes % (1L << 20);
        return new Job(
                Type.WRITE_VERIFY, slot, slot * SLOT_BYTES, bytes, sequential, bs, depth, random.nextLong() >>> 1);
    }

    /** A read-only job (the null LUN). */
    static Job readJob(Random random) {
        String bs = BLOCK_SIZES.get(random.nextInt(BLOCK_SIZES.size()));
        return new Job(
                Type.READ,
                -1,
                0,
                0,
                random.nextBoolean(),
                bs,
                DEPTHS.get(random.nextInt(DEPTHS.size())),
                random.nextLong() >>> 1);
    }

    static long parseSize(String s) {
        long unit = switch (Character.toLowerCase(s.charAt(s.length() - 1))) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        return Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1)) * unit;
    }

    /** The fio job file. */
    static String jobFile(Job job, String url, String initiator) {
        // thread: the job runs in fio's own process, so a SIGKILL to it ends the I/O (a forked job would go on,
        // reconnecting to the target, as an orphan)
        StringBuilder j = new StringBuilder("[global]\nioengine=libiscsi\nthread=1\n")
                .append("filename=")
                .append(url.replace(":", "\\:"))
                .append('\n')
                .append("initiator=")
                .append(initiator)
                .append('\n')
                .append("randrepeat=1\nrandseed=")
                .append(job.seed())
                .append('\n');
        boolean small = !job.blockSize().contains("-") && parseSize(job.blockSize()) <= 16 << 10;
        j.append(small ? "rate_iops=" + SMALL_BLOCK_IOPS : "rate=" + LARGE_BLOCK_RATE)
                .append('\n');
        j.append("\n[")
                .append(job.type().name().toLowerCase())
                .append("]\n")
                .append("rw=")
                .append(job.rw())
                .append('\n')
                .append(job.blockSize().contains("-") ? "bsrange=" : "bs=")
                .append(job.blockSize())
                .append('\n')
                .append("iodepth=")
                .append(job.depth())
                .append('\n');
        if (job.type() == Type.READ) {
            j.append("time_based=1\nruntime=").append(READ_ROUND.toSeconds()).append('\n');
        } else {
            j.append("offset=")
                    .append(job.offset())
                    .append("\nsize=")
                    .append(job.bytes())
                    .append('\n')
                    .append("verify=crc32c\ndo_verify=1\nverify_dump=0\nverify_state_save=0\n")
                    .append("continue_on_error=verify\n"); // every bad block is reported, not just the first
            if (job.type() == Type.VERIFY_ONLY) {
                j.append("verify_only=1\n");
            }
        }
        return j.toString();
    }

    private final Job job;
    private final Path dir;
    private final String name;
    private volatile Process process;
    private volatile boolean killed;

    FioRound(Job job, Path dir, String name) {
        this.job = job;
        this.dir = dir;
        this.name = name;
    }

    Job job() {
        return job;
    }

    /** Runs fio to its end (or {@code limit}); the job file, output and JSON stay in {@code dir} as {@code name.*}. */
    Result run(String fio, String url, String initiator, Duration limit) throws IOException, InterruptedException {
        Path jobFile = dir.resolve(name + ".fio");
        Path json = dir.resolve(name + ".json");
        Path output = dir.resolve(name + ".log");
        Files.writeString(jobFile, jobFile(job, url, initiator), StandardCharsets.UTF_8);
        Instant start = Instant.now();
        Process p = new ProcessBuilder(fio, "--output-format=json", "--output=" + json, jobFile.toString())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        process = p;
        if (killed) {
            destroyTree(p);
        }
        boolean ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            destroyTree(p);
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Instant end = Instant.now();
        String text = Files.readString(output, StandardCharsets.ISO_8859_1);
        long verifyFailures = text.lines().filter(FioRound::verifyFailure).count();
        List<String> verifyLines =
                text.lines().filter(FioRound::verifyFailure).limit(3).toList();
        long written = 0;
        long read = 0;
        int error = -1;
        if (Files.exists(json) && Files.size(json) > 0) { // fio killed as it started writes no JSON at all
            try {
                JsonNode j = new ObjectMapper()
                        .readTree(jsonPart(Files.readString(json, StandardCharsets.UTF_8)))
                        .path("jobs")
                        .path(0);
                written = j.path("write").path("io_bytes").asLong();
                read = j.path("read").path("io_bytes").asLong();
                error = j.path("error").asInt(-1);
            } catch (IOException badJson) {
                // a killed fio leaves no JSON, or half of it
            }
        }
        Outcome outcome;
        String detail;
        if (!verifyLines.isEmpty() || error == 84) {
            outcome = Outcome.VERIFY_ERROR;
            detail = verifyFailures + " verify failure line(s): " + String.join(" | ", verifyLines);
        } else if (killed) {
            outcome = Outcome.KILLED;
            detail = "killed by the harness";
        } else if (!ended) {
            outcome = Outcome.TIMEOUT;
            detail = "no end within " + limit.toSeconds() + " s";
        } else if (p.exitValue() != 0 || error != 0 || !complete(written, read)) {
            outcome = Outcome.IO_ERROR;
            detail = "exit " + p.exitValue() + ", error " + error + ", wrote " + written + ", read " + read + ": "
                    + lastLines(text, 3);
        } else {
            outcome = Outcome.OK;
            detail = "";
        }
        return new Result(job, start, end, outcome, written, read, detail);
    }

    /** fio may print messages before its JSON in the output file. */
    static String jsonPart(String s) {
        int i = s.indexOf('{');
        return i < 0 ? "{}" : s.substring(i);
    }

    private boolean complete(long written, long read) {
        return switch (job.type()) {
            case WRITE_VERIFY -> written == job.bytes() && read == job.bytes();
            case VERIFY_ONLY -> read == job.bytes();
            case READ -> read > 0;
        };
    }

    /** A line fio prints for data that does not match what was written. */
    static boolean verifyFailure(String line) {
        String l = line.toLowerCase();
        return l.startsWith("verify:")
                || l.contains("verify failed")
                || l.contains("bad magic header")
                || l.contains("bad header")
                || l.contains("verify type mismatch");
    }

    private static String lastLines(String text, int n) {
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /** Removes the round's job file, output and JSON (a round that passed leaves nothing to look at). */
    void deleteFiles() {
        for (String ext : List.of(".fio", ".json", ".log")) {
            try {
                Files.deleteIfExists(dir.resolve(name + ext));
            } catch (IOException ignored) {
                // kept, then
            }
        }
    }

    /** SIGKILL, mid-I/O: the chaos event "an initiator killed", or a round stopped before a restart loses its data. */
    void kill() {
        killed = true;
        Process p = process;
        if (p != null) {
            destroyTree(p);
        }
    }

    private static void destroyTree(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }
}
