package io.numaiscsi.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Process-wide settings.
 *
 * @param dataDir   absolute directory that relative LUN paths resolve against
 * @param ioThreads threads for blocking backing-store I/O (1..256)
 * @param eventModel how connections and LUNs map to event threads
 * @param secretFileCheck what a configuration file holding CHAP secrets that group or others may read gets
 * @param backingIo how file-backed LUNs reach the kernel
 * @param logLevel  {@code daemon.log-level}: error, warn, info, debug or trace (lower case); null when the file has
 *                  none ({@code --log-level} wins over it, it over the NUMA_ISCSI_LOG_LEVEL environment variable)
 * @param tcpTransport how the event threads do socket I/O
 * @param eventSpin  {@code daemon.event-spin}: how long an epoll event thread polls without blocking after it ran out
 *                   of work, while its waits have been that short ({@link #DEFAULT_EVENT_SPIN}; 0: it blocks at once)
 * @param ioPoll     {@code daemon.io-poll}: the longest an epoll event thread with I/O of its LUNs in flight on
 *                   their io_uring rings polls them for the completions before it hands them to the rings' reapers
 *                   and blocks; within it the thread polls as long as its recent waits for I/O say
 *                   ({@link #DEFAULT_IO_POLL}; 0: it hands them over at once)
 */
public record DaemonSettings(
        Path dataDir,
        int ioThreads,
        EventModel eventModel,
        SecretFileCheck secretFileCheck,
        BackingIo backingIo,
        String logLevel,
        TcpTransport tcpTransport,
        Duration eventSpin,
        Duration ioPoll) {

    /** {@code daemon.event-spin} when the file has none. */
    public static final Duration DEFAULT_EVENT_SPIN = Duration.ofNanos(50_000);

    /** The longest {@code daemon.event-spin}. */
    public static final Duration MAX_EVENT_SPIN = Duration.ofMillis(1);

    /**
     * {@code daemon.io-poll} when the file has none: room for a loop device's or a busy SSD's read, far below a seek
     * (a device that takes longer is polled briefly, as a fast one).
     */
    public static final Duration DEFAULT_IO_POLL = Duration.ofMillis(1);

    /** The longest {@code daemon.io-poll}. */
    public static final Duration MAX_IO_POLL = Duration.ofMillis(10);

    /** The values {@code daemon.log-level} and {@code --log-level} take. */
    public static final List<String> LOG_LEVELS = List.of("error", "warn", "info", "debug", "trace");

    /** PER_LUN: an event thread per LUN (the default). CENTRALIZED: one thread for everything, as tgtd. */
    public enum EventModel {
        PER_LUN,
        CENTRALIZED
    }

    /** WARN: a warning in the log (the default). REFUSE: the daemon does not start. */
    public enum SecretFileCheck {
        WARN,
        REFUSE
    }

    /**
     * {@code daemon.backing-io}. AUTO (the default): io_uring when the kernel grants a ring, else THREADS. IO_URING:
     * io_uring or the daemon does not start. THREADS: blocking calls on the {@code io-threads} pool per node.
     */
    public enum BackingIo {
        AUTO("auto"),
        IO_URING("io_uring"),
        THREADS("threads");

        private final String configName;

        BackingIo(String configName) {
            this.configName = configName;
        }

        /** As written in the configuration. */
        public String configName() {
            return configName;
        }
    }

    /**
     * {@code daemon.tcp-transport}. EPOLL (the default): Netty's native epoll loop, NIO where it cannot load. IO_URING:
     * Netty's io_uring loop, or the daemon does not start. NIO: the JDK's selector.
     */
    public enum TcpTransport {
        EPOLL("epoll"),
        IO_URING("io_uring"),
        NIO("nio");

        private final String configName;

        TcpTransport(String configName) {
            this.configName = configName;
        }

        /** As written in the configuration. */
        public String configName() {
            return configName;
        }
    }

    public DaemonSettings {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(eventModel, "eventModel");
        Objects.requireNonNull(secretFileCheck, "secretFileCheck");
        Objects.requireNonNull(backingIo, "backingIo");
        Objects.requireNonNull(tcpTransport, "tcpTransport");
        Objects.requireNonNull(eventSpin, "eventSpin");
        if (eventSpin.isNegative() || eventSpin.compareTo(MAX_EVENT_SPIN) > 0) {
            throw new IllegalArgumentException("event spin " + eventSpin + " outside 0.." + MAX_EVENT_SPIN);
        }
        Objects.requireNonNull(ioPoll, "ioPoll");
        if (ioPoll.isNegative() || ioPoll.compareTo(MAX_IO_POLL) > 0) {
            throw new IllegalArgumentException("io poll " + ioPoll + " outside 0.." + MAX_IO_POLL);
        }
        if (logLevel != null && !LOG_LEVELS.contains(logLevel)) {
            throw new IllegalArgumentException("not a log level: " + logLevel);
        }
    }

    public DaemonSettings(
            Path dataDir,
            int ioThreads,
            EventModel eventModel,
            SecretFileCheck secretFileCheck,
            BackingIo backingIo,
            String logLevel) {
        this(
                dataDir,
                ioThreads,
                eventModel,
                secretFileCheck,
                backingIo,
                logLevel,
                TcpTransport.EPOLL,
                DEFAULT_EVENT_SPIN,
                DEFAULT_IO_POLL);
    }

    public DaemonSettings(
            Path dataDir, int ioThreads, EventModel eventModel, SecretFileCheck secretFileCheck, BackingIo backingIo) {
        this(dataDir, ioThreads, eventModel, secretFileCheck, backingIo, null);
    }

    public DaemonSettings(Path dataDir, int ioThreads, EventModel eventModel, SecretFileCheck secretFileCheck) {
        this(dataDir, ioThreads, eventModel, secretFileCheck, BackingIo.AUTO);
    }

    public DaemonSettings(Path dataDir, int ioThreads) {
        this(dataDir, ioThreads, EventModel.PER_LUN);
    }

    public DaemonSettings(Path dataDir, int ioThreads, EventModel eventModel) {
        this(dataDir, ioThreads, eventModel, SecretFileCheck.WARN);
    }

    public DaemonSettings withEventModel(EventModel model) {
        return new DaemonSettings(
                dataDir, ioThreads, model, secretFileCheck, backingIo, logLevel, tcpTransport, eventSpin, ioPoll);
    }

    public DaemonSettings withDataDir(Path dir) {
        return new DaemonSettings(
                dir, ioThreads, eventModel, secretFileCheck, backingIo, logLevel, tcpTransport, eventSpin, ioPoll);
    }

    public DaemonSettings withLogLevel(String level) {
        return new DaemonSettings(
                dataDir, ioThreads, eventModel, secretFileCheck, backingIo, level, tcpTransport, eventSpin, ioPoll);
    }
}
