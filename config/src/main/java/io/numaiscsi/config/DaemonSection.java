package io.numaiscsi.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The {@code daemon:} section. */
final class DaemonSection {

    static final String KEY = "daemon";
    static final List<String> KEYS = List.of(
            "data-dir",
            "io-threads",
            "event-model",
            "secret-file-check",
            "backing-io",
            "log-level",
            "tcp-transport",
            "event-spin",
            "io-poll");
    static final int DEFAULT_IO_THREADS = 4;

    private DaemonSection() {}

    static DaemonSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        Path dataDir = DefaultDataDir.forThisProcess();
        Cursor c = f.optional("data-dir");
        if (c != null) {
            dataDir = path(c);
            if (!dataDir.isAbsolute()) {
                throw c.error("\"" + c.text() + "\" must be an absolute path");
            }
        }
        int ioThreads = f.integer("io-threads", 1, 256, DEFAULT_IO_THREADS);
        DaemonSettings.EventModel model = DaemonSettings.EventModel.PER_LUN;
        Cursor m = f.optional("event-model");
        if (m != null) {
            model = switch (m.text().toLowerCase(Locale.ROOT)) {
                case "per-lun" -> DaemonSettings.EventModel.PER_LUN;
                case "centralized" -> DaemonSettings.EventModel.CENTRALIZED;
                default -> throw m.error("\"" + m.text() + "\" is not an event model (use per-lun or centralized)");
            };
        }
        DaemonSettings.SecretFileCheck secretFileCheck = DaemonSettings.SecretFileCheck.WARN;
        Cursor s = f.optional("secret-file-check");
        if (s != null) {
            secretFileCheck = switch (s.text().toLowerCase(Locale.ROOT)) {
                case "warn" -> DaemonSettings.SecretFileCheck.WARN;
                case "refuse" -> DaemonSettings.SecretFileCheck.REFUSE;
                default -> throw s.error("\"" + s.text() + "\" is not a secret-file-check (use warn or refuse)");
            };
        }
        Cursor spin = f.optional("event-spin");
        Duration eventSpin = spin == null
                ? DaemonSettings.DEFAULT_EVENT_SPIN
                : spin.duration(Duration.ofNanos(1000), DaemonSettings.MAX_EVENT_SPIN, true);
        Cursor poll = f.optional("io-poll");
        Duration ioPoll = poll == null
                ? DaemonSettings.DEFAULT_IO_POLL
                : poll.duration(Duration.ofNanos(1000), DaemonSettings.MAX_IO_POLL, true);
        return new DaemonSettings(
                dataDir.normalize(),
                ioThreads,
                model,
                secretFileCheck,
                backingIo(f),
                logLevel(f),
                tcpTransport(f),
                eventSpin,
                ioPoll);
    }

    private static String logLevel(Fields f) throws ConfigException {
        Cursor c = f.optional("log-level");
        if (c == null) {
            return null;
        }
        String level = c.text().toLowerCase(Locale.ROOT);
        if (!DaemonSettings.LOG_LEVELS.contains(level)) {
            throw c.error("\"" + c.text() + "\" is not a log level (use error, warn, info, debug or trace)");
        }
        return level;
    }

    private static DaemonSettings.TcpTransport tcpTransport(Fields f) throws ConfigException {
        return choice(
                f,
                "tcp-transport",
                DaemonSettings.TcpTransport.values(),
                DaemonSettings.TcpTransport::configName,
                DaemonSettings.TcpTransport.EPOLL);
    }

    private static DaemonSettings.BackingIo backingIo(Fields f) throws ConfigException {
        return choice(
                f,
                "backing-io",
                DaemonSettings.BackingIo.values(),
                DaemonSettings.BackingIo::configName,
                DaemonSettings.BackingIo.AUTO);
    }

    /** The value of {@code key} spelled as one of {@code values}, or {@code absent} when the key is not there. */
    private static <E> E choice(Fields f, String key, E[] values, Function<E, String> spelling, E absent)
            throws ConfigException {
        Cursor c = f.optional(key);
        if (c == null) {
            return absent;
        }
        List<String> names = new ArrayList<>();
        for (E v : values) {
            if (spelling.apply(v).equals(c.text())) {
                return v;
            }
            names.add(spelling.apply(v));
        }
        String last = names.remove(names.size() - 1);
        throw c.error(
                "\"" + c.text() + "\" is not a " + key + " (use " + String.join(", ", names) + " or " + last + ")");
    }

    /** A file-system path as written (not resolved). */
    static Path path(Cursor c) throws ConfigException {
        String t = c.text();
        if (t.isBlank()) {
            throw c.error("path is empty");
        }
        try {
            return Path.of(t);
        } catch (InvalidPathException e) {
            throw c.error("\"" + t + "\" is not a valid path (" + e.getReason() + ")");
        }
    }
}
