package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** {@code daemon.event-model}, {@code daemon.secret-file-check}, the default data dir: defaults, values, bad values. */
class DaemonSectionTest {
    private static final String TARGETS =
            "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n    luns: [{id: 0, backing: ram, size: 1M}]\n";

    @Test
    void eventModelDefaultsToPerLun() throws ConfigException {
        assertEquals(
                DaemonSettings.EventModel.PER_LUN,
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().eventModel());
    }

    @Test
    void eventModelValues() throws ConfigException {
        assertEquals(
                DaemonSettings.EventModel.CENTRALIZED,
                ConfigLoader.parse("daemon:\n  event-model: centralized\n" + TARGETS, "t.yaml")
                        .daemon()
                        .eventModel());
        assertEquals(
                DaemonSettings.EventModel.PER_LUN,
                ConfigLoader.parse("daemon:\n  event-model: per-lun\n" + TARGETS, "t.yaml")
                        .daemon()
                        .eventModel());
    }

    @Test
    void badEventModelNamesFileLineAndKey() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse("daemon:\n  event-model: threaded\n" + TARGETS, "t.yaml"));
        assertEquals(
                "t.yaml:2: daemon.event-model: \"threaded\" is not an event model (use per-lun or centralized)",
                e.getMessage());
    }

    @Test
    void secretFileCheckDefaultsToWarn() throws ConfigException {
        assertEquals(
                DaemonSettings.SecretFileCheck.WARN,
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().secretFileCheck());
        assertEquals(
                DaemonSettings.SecretFileCheck.WARN,
                ConfigLoader.parse("daemon:\n  secret-file-check:\n" + TARGETS, "t.yaml")
                        .daemon()
                        .secretFileCheck());
    }

    @Test
    void secretFileCheckValues() throws ConfigException {
        assertEquals(
                DaemonSettings.SecretFileCheck.REFUSE,
                ConfigLoader.parse("daemon:\n  secret-file-check: refuse\n" + TARGETS, "t.yaml")
                        .daemon()
                        .secretFileCheck());
        assertEquals(
                DaemonSettings.SecretFileCheck.WARN,
                ConfigLoader.parse("daemon:\n  secret-file-check: warn\n" + TARGETS, "t.yaml")
                        .daemon()
                        .secretFileCheck());
    }

    @Test
    void badSecretFileCheckNamesFileLineAndKey() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse("daemon:\n  io-threads: 2\n  secret-file-check: deny\n" + TARGETS, "t.yaml"));
        assertEquals(
                "t.yaml:3: daemon.secret-file-check: \"deny\" is not a secret-file-check (use warn or refuse)",
                e.getMessage());
    }

    @Test
    void backingIoDefaultsToAuto() throws ConfigException {
        assertEquals(
                DaemonSettings.BackingIo.AUTO,
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().backingIo());
    }

    @Test
    void backingIoValues() throws ConfigException {
        for (DaemonSettings.BackingIo b : DaemonSettings.BackingIo.values()) {
            assertEquals(
                    b,
                    ConfigLoader.parse("daemon:\n  backing-io: " + b.configName() + "\n" + TARGETS, "t.yaml")
                            .daemon()
                            .backingIo());
        }
    }

    @Test
    void badBackingIoNamesFileLineAndKey() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> ConfigLoader.parse("daemon:\n  backing-io: libaio\n" + TARGETS, "t.yaml"));
        assertEquals(
                "t.yaml:2: daemon.backing-io: \"libaio\" is not a backing-io (use auto, io_uring or threads)",
                e.getMessage());
    }

    @Test
    void tcpTransportValuesAndDefault() throws ConfigException {
        assertEquals(
                DaemonSettings.TcpTransport.EPOLL,
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().tcpTransport());
        for (DaemonSettings.TcpTransport t : DaemonSettings.TcpTransport.values()) {
            assertEquals(
                    t,
                    ConfigLoader.parse("daemon:\n  tcp-transport: " + t.configName() + "\n" + TARGETS, "t.yaml")
                            .daemon()
                            .tcpTransport());
        }
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse("daemon:\n  tcp-transport: uring\n" + TARGETS, "t.yaml"));
        assertEquals(
                "t.yaml:2: daemon.tcp-transport: \"uring\" is not a tcp-transport (use epoll, io_uring or nio)",
                e.getMessage());
    }

    @Test
    void eventSpinIs50usByDefaultTakesMicrosecondsAndIsBounded() throws ConfigException {
        assertEquals(
                Duration.ofNanos(50_000),
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().eventSpin());
        assertEquals(
                Duration.ofNanos(50_000),
                ConfigLoader.parse("daemon:\n  event-spin: 50us\n" + TARGETS, "t.yaml")
                        .daemon()
                        .eventSpin());
        assertEquals(
                Duration.ZERO,
                ConfigLoader.parse("daemon:\n  event-spin: 0\n" + TARGETS, "t.yaml")
                        .daemon()
                        .eventSpin());
        ConfigException e = assertThrows(
                ConfigException.class, () -> ConfigLoader.parse("daemon:\n  event-spin: 2ms\n" + TARGETS, "t.yaml"));
        assertEquals("t.yaml:2: daemon.event-spin: 2ms is out of range (0 or 1us..1ms)", e.getMessage());
    }

    @Test
    void ioPollIs1msByDefaultTakesMicrosecondsAndIsBounded() throws ConfigException {
        assertEquals(
                Duration.ofMillis(1),
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().ioPoll());
        assertEquals(
                Duration.ofMillis(2),
                ConfigLoader.parse("daemon:\n  io-poll: 2ms\n" + TARGETS, "t.yaml")
                        .daemon()
                        .ioPoll());
        assertEquals(
                Duration.ZERO,
                ConfigLoader.parse("daemon:\n  io-poll: 0\n" + TARGETS, "t.yaml")
                        .daemon()
                        .ioPoll());
        ConfigException e = assertThrows(
                ConfigException.class, () -> ConfigLoader.parse("daemon:\n  io-poll: 20ms\n" + TARGETS, "t.yaml"));
        assertEquals("t.yaml:2: daemon.io-poll: 20ms is out of range (0 or 1us..10ms)", e.getMessage());
    }

    @Test
    void dataDirDefaultsToThisUsersDefault() throws ConfigException {
        assertEquals(
                DefaultDataDir.forThisProcess(),
                ConfigLoader.parse(TARGETS, "t.yaml").daemon().dataDir());
    }

    @Test
    void logLevelIsAbsentUnlessWrittenAndTakesEveryLevelInAnyCase() throws ConfigException {
        assertEquals(null, ConfigLoader.parse(TARGETS, "t.yaml").daemon().logLevel());
        for (String level : DaemonSettings.LOG_LEVELS) {
            assertEquals(
                    level,
                    ConfigLoader.parse(
                                    "daemon:\n  log-level: " + level.toUpperCase(Locale.ROOT) + "\n" + TARGETS,
                                    "t.yaml")
                            .daemon()
                            .logLevel());
        }
    }

    @Test
    void badLogLevelNamesFileLineAndKey() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse("daemon:\n  io-threads: 2\n  log-level: verbose\n" + TARGETS, "t.yaml"));
        assertEquals(
                "t.yaml:3: daemon.log-level: \"verbose\" is not a log level (use error, warn, info, debug or trace)",
                e.getMessage());
    }

    @Test
    void logLevelIsWrittenBackWhenSet() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("daemon:\n  log-level: debug\n" + TARGETS, "t.yaml");
        assertEquals(
                "debug",
                ConfigLoader.parse(ConfigWriter.write(c), "saved.yaml").daemon().logLevel());
    }
}
