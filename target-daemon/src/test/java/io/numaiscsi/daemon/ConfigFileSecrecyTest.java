package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.TargetConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A configuration file with CHAP secrets that group or others may read: warned about, or refused. */
class ConfigFileSecrecyTest {
    private static final String TARGET =
            "targets: [{name: iqn.2026-11.io.numaiscsi:d, luns: [{id: 0, backing: ram, size: 1M}]}]\n";
    private static final String CHAP = "discovery-chap: {username: d, secret: discovery-secret-16}\n";

    @TempDir
    Path tmp;

    private Path file(String yaml, String mode) throws Exception {
        Path f = Files.writeString(tmp.resolve("target.yaml"), yaml);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private static TargetConfig load(Path f) throws ConfigException {
        return ConfigLoader.load(f);
    }

    @Test
    void aFileWithoutSecretsMayBeReadByAnyone() throws Exception {
        Path f = file(TARGET, "rw-r--r--");
        assertNull(ConfigFileSecrecy.problem(f, load(f)));
    }

    @Test
    void secretsReadableByTheOwnerAloneAreFine() throws Exception {
        Path f = file(CHAP + TARGET, "rw-------");
        assertNull(ConfigFileSecrecy.problem(f, load(f)));
        f = file("daemon: {secret-file-check: refuse}\n" + CHAP + TARGET, "r--------");
        ConfigFileSecrecy.check(f, load(f));
    }

    @Test
    void secretsReadableByGroupOrOthersAreAProblem() throws Exception {
        Path f = file(CHAP + TARGET, "rw-r-----");
        assertEquals(
                "holds CHAP secrets but is readable by group or others (mode 0640): chmod 600 " + f,
                ConfigFileSecrecy.problem(f, load(f)));
        f = file(CHAP + TARGET, "rw----r--");
        assertEquals(
                "holds CHAP secrets but is readable by group or others (mode 0604): chmod 600 " + f,
                ConfigFileSecrecy.problem(f, load(f)));
    }

    @Test
    void warnByDefaultRefuseWhenConfigured() throws Exception {
        Path f = file(CHAP + TARGET, "rw-r--r--");
        ConfigFileSecrecy.check(f, load(f));

        Path refusing = file("daemon:\n  secret-file-check: refuse\n" + CHAP + TARGET, "rw-r--r--");
        ConfigException e =
                assertThrows(ConfigException.class, () -> ConfigFileSecrecy.check(refusing, load(refusing)));
        assertEquals(
                refusing + ": holds CHAP secrets but is readable by group or others (mode 0644): chmod 600 " + refusing
                        + " (daemon.secret-file-check: refuse)",
                e.getMessage());
    }
}
