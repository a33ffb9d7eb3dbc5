package io.numaiscsi.daemon;

import java.util.Properties;

/**
 * Netty's process-wide settings the daemon chooses; Netty reads each once, so they are set before any Netty class
 * initializes, and a value given with {@code -D} wins.
 *
 * <ul>
 *   <li><b>Leak detection off.</b> Netty's default ({@code simple}) records a stack trace for one buffer in 128; on
 *       the daemon's I/O path that was about 115 of the 120 bytes allocated per 4K read (JFR,
 *       {@code fio-tests/bench/measure-allocation.sh}). To hunt a leak, start the daemon with
 *       {@code -Dio.netty.leakDetection.level=simple} (or {@code advanced}, {@code paranoid}).
 *   <li><b>Recycler batches of 256.</b> A thread keeps the buffers, buffer handles and write entries it recycles in a
 *       batch of {@code io.netty.recycler.chunkSize} (Netty's default 32) and puts the rest in a queue that allocates
 *       a new chunk for each 32 it takes. A LUN thread with 32 commands in flight holds more than 32 of each at once:
 *       with the default that was 12-14 bytes allocated per 4K read, with 256 none.
 * </ul>
 */
final class NettyDefaults {
    static final String LEVEL = "io.netty.leakDetection.level";
    /** The name older Netty versions read; Netty 4.2 still honours it. */
    static final String LEGACY_LEVEL = "io.netty.leakDetectionLevel";

    static final String RECYCLER_BATCH = "io.netty.recycler.chunkSize";
    static final int RECYCLER_BATCH_SIZE = 256;

    private NettyDefaults() {}

    /** Must run before any Netty class initializes. */
    static void applyUnlessAsked() {
        applyUnlessAsked(System.getProperties());
    }

    static void applyUnlessAsked(Properties properties) {
        if (properties.getProperty(LEVEL) == null && properties.getProperty(LEGACY_LEVEL) == null) {
            properties.setProperty(LEVEL, "disabled");
        }
        if (properties.getProperty(RECYCLER_BATCH) == null) {
            properties.setProperty(RECYCLER_BATCH, Integer.toString(RECYCLER_BATCH_SIZE));
        }
    }
}
