package io.numaiscsi.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Whether the machine has swap: tmpfs pages can then be swapped out, and reading one waits for the device. */
final class SwapSpace {
    private static final Path SWAPS = Path.of("/proc/swaps");

    private SwapSpace() {}

    /** True when /proc/swaps lists no swap area (only its header line); false if it cannot be read. */
    static boolean none() {
        try {
            return none(Files.readAllLines(SWAPS));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static boolean none(List<String> procSwaps) {
        return procSwaps.stream().skip(1).noneMatch(line -> !line.isBlank());
    }
}
