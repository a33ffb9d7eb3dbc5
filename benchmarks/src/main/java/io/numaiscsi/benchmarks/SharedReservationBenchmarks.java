package io.numaiscsi.benchmarks;

import io.numaiscsi.daemon.cluster.LocalFileObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What sharing persistent reservations through a {@link LocalFileObject} on tmpfs costs: the version look every
 * command's admission makes (a load from the mapped version word), a PERSISTENT RESERVE OUT's compare-and-swap (lock,
 * read, write a temporary file, fsync, rename, store the version), and the read a gateway makes when a peer changed
 * the state. Two handles on one object stand for two gateways.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SharedReservationBenchmarks {
    private Path dir;
    private LocalFileObject writer;
    private LocalFileObject reader;
    private long version;
    /** About the JSON of two registrations and a reservation. */
    private final byte[] state = new byte[600];

    @Setup
    public void open() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.createTempDirectory(
                Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), "shared-pr-bench-");
        writer = new LocalFileObject(dir, "pr.bench.lun-0");
        reader = new LocalFileObject(dir, "pr.bench.lun-0");
        version = writer.replace(0, state, false).version();
    }

    @TearDown
    public void remove() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

    /** The admission check of every command (before each reservation conflict decision). */
    @Benchmark
    public long knownVersion() {
        return reader.knownVersion();
    }

    /** One PERSISTENT RESERVE OUT's publication. */
    @Benchmark
    public long replace() throws IOException {
        version = writer.replace(version, state, false).version();
        return version;
    }

    /** A peer taking up a changed state. */
    @Benchmark
    public int read() throws IOException {
        return reader.read().bytes().length;
    }
}
