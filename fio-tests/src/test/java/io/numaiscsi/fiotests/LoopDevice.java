package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A loop device attached with {@code losetup --find --show --sector-size N --direct-io=on} over a sparse file, with
 * the block sizes the kernel reports for it ({@code blockdev --getss/--getpbsz}); detached (and its file deleted) on
 * close.
 */
final class LoopDevice implements AutoCloseable {
    static final Duration LIMIT = Duration.ofSeconds(60);

    private final Path device;
    private final Path file;
    private final int logicalBlockSize;
    private final int physicalBlockSize;

    private LoopDevice(Path device, Path file, int logicalBlockSize, int physicalBlockSize) {
        this.device = device;
        this.file = file;
        this.logicalBlockSize = logicalBlockSize;
        this.physicalBlockSize = physicalBlockSize;
    }

    /** The losetup binary, or null when it is not installed. */
    static Path losetup() {
        for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
            Path p = Path.of(dir, "losetup");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** A sparse file of {@code bytes} at {@code file}, attached with logical blocks of {@code sectorSize}. */
    static LoopDevice attach(Path file, long bytes, int sectorSize, String logName) throws Exception {
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        }
        ToolRun r = tool(
                logName,
                List.of(
                        losetup().toString(),
                        "--find",
                        "--show",
                        "--sector-size",
                        Integer.toString(sectorSize),
                        "--direct-io=on",
                        file.toString()));
        if (r.exitCode() != 0) {
            Files.deleteIfExists(file);
            throw new IOException("losetup failed: " + r.describe(10));
        }
        Path device = Path.of(
                r.output().strip().lines().reduce((a, b) -> b).orElseThrow().strip());
        LoopDevice loop = new LoopDevice(device, file, 0, 0);
        try {
            return new LoopDevice(
                    device, file, blockdev(logName, "--getss", device), blockdev(logName, "--getpbsz", device));
        } catch (Exception | AssertionError e) {
            loop.close();
            throw e;
        }
    }

    private static int blockdev(String logName, String option, Path device) throws Exception {
        ToolRun r = tool(logName, List.of("blockdev", option, device.toString()));
        assertEquals(0, r.exitCode(), r.describe(10));
        String[] lines = r.output().strip().split("\n");
        return Integer.parseInt(lines[lines.length - 1].strip());
    }

    static ToolRun tool(String logName, List<String> command) throws Exception {
        ToolRun r = ToolRun.run(DaemonProcess.logDir().resolve(logName), LIMIT, new ArrayList<>(command));
        assertFalse(r.timedOut(), r.describe(10));
        return r;
    }

    Path device() {
        return device;
    }

    int logicalBlockSize() {
        return logicalBlockSize;
    }

    int physicalBlockSize() {
        return physicalBlockSize;
    }

    /** Detaches the device and deletes its file; failures are reported, not thrown (cleanup runs in finally). */
    @Override
    public void close() throws Exception {
        ToolRun r = tool(device.getFileName() + "-detach.log", List.of(losetup().toString(), "-d", device.toString()));
        Files.deleteIfExists(file);
        if (r.exitCode() != 0) {
            throw new IOException("losetup -d " + device + " failed: " + r.describe(10));
        }
    }

    @Override
    public String toString() {
        return device + " (logical " + logicalBlockSize + ", physical " + physicalBlockSize + ", over " + file + ")";
    }
}
