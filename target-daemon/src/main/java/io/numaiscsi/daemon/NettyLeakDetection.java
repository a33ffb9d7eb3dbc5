package io.numaiscsi.daemon;

import java.util.Properties;

/**
 * Netty's buffer leak detection, off unless asked for. Netty's default ({@code simple}) records a stack trace for one
 * buffer in 128; on the daemon's I/O path that was about 115 of the 120 bytes allocated per 4K read (JFR,
 * {@code fio-tests/bench/measure-allocation.sh}). To hunt a leak, start the daemon with
 * {@code -Dio.netty.leakDetection.level=simple} (or {@code advanced}, {@code paranoid}): a level given either way wins.
 */
final class NettyLeakDetection {
    static final String LEVEL = "io.netty.leakDetection.level";
    /** The name older Netty versions read; Netty 4.2 still honours it. */
    static final String LEGACY_LEVEL = "io.netty.leakDetectionLevel";

    private NettyLeakDetection() {}

    /** Must run before any Netty class initializes: Netty reads the level once. */
    static void offUnlessAsked() {
        offUnlessAsked(System.getProperties());
    }

    static void offUnlessAsked(Properties properties) {
        if (properties.getProperty(LEVEL) == null && properties.getProperty(LEGACY_LEVEL) == null) {
            properties.setProperty(LEVEL, "disabled");
        }
    }
}
