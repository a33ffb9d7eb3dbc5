package io.numaiscsi.fiotests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/** What the database power-cut series (WiredTigerGuestTest, PostgresGuestTest) set up alike. */
final class PowerCutSeries {
    private PowerCutSeries() {}

    /** The write policies the comma-separated system property {@code property} names, write-back when unset (CI). */
    static Stream<String> policies(String property) {
        return Arrays.stream(System.getProperty(property, "write-back").split(","))
                .map(String::strip);
    }

    /** A file LUN of {@code lunBytes} behind the NUMA cache with {@code writePolicy}, on 2 pretend nodes. */
    static DaemonProcess.Setup daemon(long lunBytes, String writePolicy) {
        return DaemonProcess.Setup.fileLun(lunBytes)
                .section(CacheModesTest.cacheSection(writePolicy))
                .section("numa: {pretend-nodes: 2}");
    }

    /** {@code file}, emptied: the series' history of what was committed. */
    static Path emptyFile(Path file) throws IOException {
        Files.deleteIfExists(file);
        return Files.createFile(file);
    }
}
